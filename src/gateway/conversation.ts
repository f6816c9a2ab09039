/**
 * Which conversation a chat request belongs to (README GATEWAY.md "Conversations, dedupe and replay"):
 * the id a client gives (our `X-Lorecards-Conversation`, a client's own session header, a session id in
 * the body), else a fingerprint of how the conversation opened. Everything the gateway keeps per
 * conversation (replay records, the ledger, timed memory, usage) is keyed on this.
 */
import { CLIENT_SESSIONS } from "../clients.ts";
import type { Markers } from "../inject/index.ts";
import { stripBlocks } from "../inject/index.ts";
import { typedText } from "../recall/index.ts";
import type { Conversation, Store } from "../state/index.ts";
import { letOthersRun, YIELD_FROM_BYTES } from "./_body.ts";
import type { ChatView } from "./_chat.ts";

export const CONVERSATION_HEADER = "x-lorecards-conversation";

/** A client's session header, and the prefix its ids get (`claude-code:<uuid>`), from src/clients.ts. */
const CLIENT_SESSION_HEADERS = CLIENT_SESSIONS.map(
  (s) => [s.header, s.client.toLowerCase().replaceAll(" ", "-")] as const,
);

/** A conversation id the client gave: ours, a client's session header, or a session id in the body. */
export function clientConversation(view: ChatView, headers: Headers): string | undefined {
  const given = headers.get(CONVERSATION_HEADER)?.trim();
  if (given) return given.slice(0, 200);
  for (const [name, client] of CLIENT_SESSION_HEADERS) {
    const id = headers.get(name)?.trim();
    if (id) return `${client}:${id.slice(0, 200)}`;
  }
  return view.session?.slice(0, 240);
}

/**
 * The conversation a request belongs to. Without an id from the client, the fingerprint of the
 * README's "Conversations, dedupe and replay": sha256(system prompt + first user message)[:16], the
 * user message read as the person typed it (what a client wraps around it, src/clients.ts, is left
 * out: Qwen Code's `-c` drops the date reminder it put into the first message, and the conversation is
 * still the same one). Some clients change their system prompt part way (Claude Code between `-p` and
 * `-p --continue`): a request that already has earlier turns but an unknown fingerprint continues the
 * latest conversation that opened the same way.
 */
export async function findConversation(
  view: ChatView,
  headers: Headers,
  markers: Markers,
  store: Pick<Store, "findByOpening" | "loadConversation">,
): Promise<{ conversation: string; opening?: string; state?: Conversation }> {
  const given = clientConversation(view, headers);
  if (given) return { conversation: given };
  // The first message the person typed (a message holding only a client's wrapper, such as Gemini
  // CLI's `<session_context>` with the date and folder, is the client talking, not how the chat opened).
  const { index: firstUser, typed: first } = firstTyped(view, markers);
  const conversation = sha256(stripBlocks(view.system, markers) + first).slice(0, 16);
  // Hashing a first message of megabytes twice would be one long phase (_body.ts).
  await letOthersRun(first.length >= YIELD_FROM_BYTES);
  // The first user message's words are read once: for a message of megabytes each reading is a copy.
  const opening = sha256(
    view.messages
      .slice(0, firstUser + 1)
      .filter((m) => m.role === "user" || m.role === "assistant")
      .map((m, i, all) => {
        const words = i === all.length - 1 ? first : opened(m.role, stripBlocks(m.text, markers));
        return `${m.role}\n${words}`;
      })
      .join("\n"),
  ).slice(0, 32);
  const continues = view.messages.slice(firstUser + 1).some((m) => m.role === "assistant");
  if (!continues) return { conversation, opening };
  // Loaded here to see whether the fingerprint is known; handed back so the caller need not load it again.
  const state = await store.loadConversation(conversation);
  if (state.turn === 0) {
    const earlier = await store.findByOpening(opening);
    if (earlier !== null) return { conversation: earlier, opening };
  }
  return { conversation, opening, state };
}

/**
 * The first user message with words the person typed (else the first user message, with none), and
 * those words; index -1 and no words when there is no user message.
 */
function firstTyped(view: ChatView, markers: Markers): { index: number; typed: string } {
  for (let i = 0; i < view.messages.length; i++) {
    const m = view.messages[i]!;
    if (m.role !== "user") continue;
    const typed = typedText(stripBlocks(m.text, markers));
    if (typed !== "") return { index: i, typed };
  }
  return { index: view.messages.findIndex((m) => m.role === "user"), typed: "" };
}

/** A message of the opening as it counts: a user message's words as the person typed them. */
function opened(role: string, text: string): string {
  return role === "user" ? typedText(text) : text;
}

function sha256(text: string): string {
  return Bun.CryptoHasher.hash("sha256", text, "hex");
}

/**
 * The conversation's `prompt_cache_key` (OpenAI routes requests that share one to the same cache):
 * hashed, since a client's session id is not ours to pass on.
 */
export function cacheKeyOf(conversation: string): string {
  return `lorecards-${sha256(conversation).slice(0, 32)}`;
}
