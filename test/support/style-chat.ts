/**
 * The recorded chat of test/fixtures/style/chat.json replayed through the compiled binary, as the
 * clients would send it: the gateway gets each user message with the whole conversation before it (the
 * fake upstream's answers included), plus what clients repeat of a turn (a retry, a tool loop's next
 * request); the hook gets each prompt as Claude Code's UserPromptSubmit JSON. The style clock
 * ($LORECARDS_STYLE_NOW) is given per process, so a test can move time between them.
 */
import path from "node:path";
import { anthropicBody, anthropicToolTurn, type Msg, openaiBody, openaiToolTurn } from "./bodies.ts";

export interface ChatConversation {
  id: string;
  surface: "openai" | "anthropic" | "hook";
  messages: string[];
}

export interface Chat {
  secrets: string[];
  conversations: ChatConversation[];
}

export const CHAT_FILE = path.join(import.meta.dir, "..", "fixtures", "style", "chat.json");

export async function loadChat(): Promise<Chat> {
  return (await Bun.file(CHAT_FILE).json()) as Chat;
}

export function conversationOf(chat: Chat, id: string): ChatConversation {
  const c = chat.conversations.find((x) => x.id === id);
  if (!c) throw new Error(`no conversation ${id} in ${CHAT_FILE}`);
  return c;
}

/** What the fake upstream answers: the model talking in the person's slang, which must never be learned. */
export const MODEL_REPLY = "ngl no cap yyds 绝绝子, tiny but mighty ✨";

/**
 * One conversation through the gateway, each turn as a client sends it: the request, then the same
 * request again (a retry), then the tool loop's next request of that turn. Only the first may be learned.
 */
export async function replayThroughGateway(gatewayUrl: string, c: ChatConversation): Promise<void> {
  if (c.surface === "hook") throw new Error(`${c.id} goes through the hook`);
  const messages: Msg[] = [];
  for (const text of c.messages) {
    messages.push({ role: "user", content: text });
    const convo = { system: "You are a helpful assistant.", messages: [...messages] };
    const [p, body, toolTurn] =
      c.surface === "openai"
        ? ["/v1/chat/completions", openaiBody(convo), openaiToolTurn(convo, "tool output: lowkey no cap")]
        : ["/v1/messages", anthropicBody(convo), anthropicToolTurn(convo, "tool output: lowkey no cap")];
    for (const b of [body, body, toolTurn]) {
      const res = await fetch(`${gatewayUrl}${p}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-lorecards-conversation": c.id },
        body: JSON.stringify(b),
      });
      const answer = await res.text();
      if (res.status !== 200) throw new Error(`${c.id}: the gateway answered ${res.status}: ${answer}`);
    }
    messages.push({ role: "assistant", content: MODEL_REPLY });
  }
}

export function hookPayload(session: string, prompt: string): string {
  return JSON.stringify({
    session_id: session,
    cwd: "/home/me/project",
    permission_mode: "default",
    hook_event_name: "UserPromptSubmit",
    prompt,
  });
}
