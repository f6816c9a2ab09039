/**
 * Anthropic Messages (`POST /v1/messages`; `/messages` for clients whose base URL ends in `/v1`, such as
 * the AI SDK's provider in opencode). The system prompt is the top-level `system` field, a string
 * or an array of text blocks. A user message made only of `tool_result` blocks is seen as a tool
 * message, as in OpenAI, so a tool round trip neither counts as a turn nor receives cards. `--inject user` puts the block in front of the user message (after any
 * leading `tool_result` blocks, which the API requires to come first); `--inject system` appends it to
 * `system`. That field precedes every message, so a new card there changes the request before the
 * whole conversation: the provider's prompt cache misses from the system prompt on, on every turn
 * that adds a card. `--inject user` keeps the prefix.
 * https://docs.anthropic.com/en/api/messages
 */

import {
  type Adapter,
  applyToList,
  contentText,
  GAP,
  isObject,
  type Json,
  type JsonObject,
  makeView,
  prefixContent,
  readMessages,
} from "./_chat.ts";

export const anthropicAdapter: Adapter = {
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
    // Tool results must stay first in a user message; `system` edits go to the system field instead.
    const prefixes = edits.filter((e) => e.place === "prefix");
    const messages = applyToList(body.messages as Json[], prefixes, (m, block) => ({
      ...m,
      content: prefixContent(m.content, block, leadingToolResults(m)),
    }));
    const toSystem = edits.filter((e) => e.place !== "prefix").map((e) => e.text);
    if (toSystem.length === 0) return { ...body, messages };
    return { ...body, system: extendSystem(body.system, toSystem), messages };
  },
};

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

function extendSystem(system: Json | undefined, blocks: string[]): Json {
  if (Array.isArray(system))
    return [...system, ...blocks.map((text): JsonObject => ({ type: "text", text }))];
  const joined = blocks.join(GAP);
  return typeof system === "string" && system !== "" ? system + GAP + joined : joined;
}
