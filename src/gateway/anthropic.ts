/**
 * Anthropic Messages (`POST /v1/messages`; `/messages` for clients whose base URL ends in `/v1`, such as
 * the AI SDK's provider in opencode). The system prompt is the top-level `system` field, a string
 * or an array of text blocks. A user message made only of `tool_result` blocks is seen as a tool
 * message, as in OpenAI, so a tool round trip neither counts as a turn nor receives cards. `--inject user` puts the block in front of the user message (after any
 * leading `tool_result` blocks, which the API requires to come first); `--inject system` appends it to
 * `system`. That field precedes every message, so a new card there changes the request before the
 * whole conversation: the provider's prompt cache misses from the system prompt on, on every turn
 * that adds a card. `--inject user` keeps the prefix.
 * Usage: `usage` {input_tokens, cache_read_input_tokens, cache_creation_input_tokens, output_tokens};
 * streamed, in `message_start` (`message.usage`) then `message_delta` (`usage`, the totals so far,
 * which win). Caching happens only at the `cache_control` breakpoints a client sets (_cache-steward.ts).
 * https://docs.anthropic.com/en/api/messages
 */

import type { Usage } from "../state/index.ts";
import {
  applyToList,
  contentText,
  defineAdapter,
  type Edit,
  GAP,
  isObject,
  type Json,
  type JsonObject,
  makeView,
  prefixContent,
  readMessages,
} from "./_chat.ts";
import { tokens } from "./_usage.ts";

export const anthropicAdapter = defineAdapter({
  name: "anthropic",
  paths: ["/v1/messages", "/messages"],
  systemPlace: "system",
  read(body) {
    if (!isObject(body) || !Array.isArray(body.messages)) return null;
    const system = contentText(body.system);
    if (system === null) return null;
    const read = readMessages(body.messages, (m) => (isToolResults(m) ? "tool" : m.role));
    if (read === null) return null;
    return { ...makeView(system, read.raw, read.messages), session: sessionOf(body.metadata) };
  },
  apply(body, edits) {
    // Tool results must stay first in a user message; system edits go to the system field instead.
    const inList = edits.filter((e) => e.place !== "system" && e.place !== "system_start");
    const messages = applyToList(
      body.messages as Json[],
      inList,
      (m, block) => ({ ...m, content: prefixContent(m.content, block, leadingToolResults(m)) }),
      insertedMessage,
    );
    const start = edits.filter((e) => e.place === "system_start").map((e) => e.text);
    const end = edits.filter((e) => e.place === "system").map((e) => e.text);
    if (start.length === 0 && end.length === 0) return { ...body, messages };
    return { ...body, system: extendSystem(body.system, start, end), messages };
  },
  usage: { paths: ["usage", "message.usage"], read: usageOf },
  cacheBreakpoints: true,
});

/** Anthropic's usage: the cache reads and writes are counted beside the input, not inside it. */
function usageOf(u: Record<string, unknown>): Usage | null {
  const { input_tokens, cache_read_input_tokens: read, cache_creation_input_tokens: write } = u;
  if ([input_tokens, read, write].every((v) => typeof v !== "number")) return null;
  return {
    uncached: tokens(input_tokens),
    cacheRead: tokens(read),
    cacheWrite: tokens(write),
    output: tokens(u.output_tokens),
  };
}

/**
 * Claude Code puts `{"device_id":…,"session_id":…}` as a JSON string in `metadata.user_id`; the session
 * stays the same across `--continue` while its system prompt does not. Any other `user_id` names a
 * person, not a conversation, and is not used.
 */
function sessionOf(metadata: Json | undefined): string | undefined {
  const userId = isObject(metadata) ? metadata.user_id : undefined;
  if (typeof userId !== "string" || !userId.startsWith("{")) return undefined;
  try {
    const parsed: unknown = JSON.parse(userId);
    const id = isObject(parsed) ? parsed.session_id : undefined;
    return typeof id === "string" && id !== "" ? `claude-code:${id}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A user message that only carries tool results is the API's way of sending a tool's answer (OpenAI's
 * `tool` role): not something the user said, so it is not a turn and never receives cards.
 */
function isToolResults(msg: JsonObject): boolean {
  return (
    msg.role === "user" &&
    Array.isArray(msg.content) &&
    msg.content.length > 0 &&
    leadingToolResults(msg) === msg.content.length
  );
}

function leadingToolResults(msg: JsonObject): number {
  if (!Array.isArray(msg.content)) return 0;
  let n = 0;
  while (
    n < msg.content.length &&
    isObject(msg.content[n]) &&
    (msg.content[n] as JsonObject).type === "tool_result"
  )
    n++;
  return n;
}

/**
 * A card placed as a message of its own. Messages carry no system role here, so a system card is a
 * user message (the API joins consecutive user messages into one turn), and one that would end the
 * request as an assistant message (a prefill the model would continue) is a user message too.
 */
function insertedMessage(e: Edit): JsonObject {
  const role = e.role === "assistant" && e.place !== "after" ? "assistant" : "user";
  return { role, content: e.text };
}

/** The system text with blocks in front of it and after it, in its own form (a string or text blocks). */
function extendSystem(system: Json | undefined, start: string[], end: string[]): Json {
  if (Array.isArray(system)) {
    const parts = (texts: string[]) => texts.map((text): JsonObject => ({ type: "text", text }));
    return [...parts(start), ...system, ...parts(end)];
  }
  const own = typeof system === "string" && system !== "" ? [system] : [];
  return [...start, ...own, ...end].join(GAP);
}
