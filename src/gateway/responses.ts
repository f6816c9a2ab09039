/**
 * OpenAI Responses (`POST /v1/responses`), the only API Codex CLI speaks. `input` is a string (one user
 * message) or a list of items: messages (`{role, content}`, with or without `type: "message"`, content
 * a string or `input_text`/`output_text` parts) and other items (function calls and their outputs,
 * reasoning, item references), which are never turns and never receive cards. The system prompt is
 * `instructions` plus any `system`/`developer` messages (Codex sends no `instructions`); a card placed
 * before or after the system text goes in front of or after `instructions` when there are some.
 * `--inject user` puts the block in front of the user message's first text; `--inject system` adds a
 * system message right after it, which keeps everything before it byte-identical (`instructions`
 * precedes all input, so a card there would break the provider's prompt cache on every new card).
 * A request that continues server-side state (`previous_response_id`, `conversation`) carries only
 * its new input: cards are chosen from that alone.
 * Usage: `usage` {input_tokens, input_tokens_details.cached_tokens, output_tokens}; streamed, in
 * `response.completed` (`response.usage`).
 * https://platform.openai.com/docs/api-reference/responses/create
 */

import {
  applyToList,
  type ChatMessage,
  contentText,
  defineAdapter,
  type Edit,
  GAP,
  isObject,
  type Json,
  type JsonObject,
  makeView,
  prefixContent,
  SYSTEM_ROLES,
} from "./_chat.ts";
import { cachedPartOfInput } from "./_usage.ts";

export const responsesAdapter = defineAdapter({
  name: "responses",
  paths: ["/v1/responses", "/responses"],
  systemPlace: "after",
  promptCacheKey: true,
  read(body) {
    if (!isObject(body)) return null;
    const instructions = body.instructions ?? "";
    if (typeof instructions !== "string") return null;
    const items = inputItems(body.input);
    if (items === null) return null;
    const raw: JsonObject[] = [];
    const messages: ChatMessage[] = [];
    const system = instructions === "" ? [] : [instructions];
    for (const item of items) {
      if (!isObject(item)) return null;
      raw.push(item);
      if (!isMessage(item)) {
        messages.push({ role: String(item.type ?? "item"), text: "" });
        continue;
      }
      const text = contentText(item.content);
      if (text === null) return null;
      messages.push({ role: item.role as string, text });
      if (SYSTEM_ROLES.has(item.role as string)) system.push(text);
    }
    return { ...makeView(system.join("\n"), raw, messages), session: conversationOf(body) };
  },
  apply: applyEdits,
  usage: {
    paths: ["usage", "response.usage"],
    read: (u) => cachedPartOfInput(u.input_tokens, u.input_tokens_details, u.output_tokens),
  },
});

/** The edits applied to a body; system-placed blocks go around `instructions` when it has some. */
function applyEdits(body: JsonObject, edits: readonly Edit[]): JsonObject {
  if (typeof body.instructions === "string" && body.instructions !== "") {
    const toSystem = edits.filter((e) => e.place === "system" || e.place === "system_start");
    if (toSystem.length > 0) {
      const rest = edits.filter((e) => !toSystem.includes(e));
      return applyEdits({ ...body, instructions: withSystem(body.instructions, toSystem) }, rest);
    }
  }
  if (typeof body.input === "string") return applyToString(body, body.input, edits);
  const input = applyToList(body.input as Json[], edits, (m, block) => ({
    ...m,
    content: prefixContent(m.content, block, 0, "input_text"),
  }));
  return { ...body, input };
}

/** A string input is one user message; a list is taken as it is; anything else is not ours to read. */
function inputItems(input: Json | undefined): Json[] | null {
  if (typeof input === "string") return [{ role: "user", content: input }];
  return Array.isArray(input) ? input : null;
}

function isMessage(item: JsonObject): boolean {
  return typeof item.role === "string" && (item.type === undefined || item.type === "message");
}

/** `instructions` with system-placed blocks in front of it and after it. */
function withSystem(instructions: string, edits: readonly Edit[]): string {
  const of = (place: Edit["place"]) => edits.filter((e) => e.place === place).map((e) => e.text);
  return [...of("system_start"), instructions, ...of("system")].join(GAP);
}

/** A string input stays a string when blocks only go in front; a message of ours needs the list form. */
function applyToString(body: JsonObject, input: string, edits: readonly Edit[]): JsonObject {
  if (edits.every((e) => e.place === "prefix")) {
    let text = input;
    for (const e of [...edits].reverse()) text = prefixContent(text, e.text) as string;
    return { ...body, input: text };
  }
  return applyEdits({ ...body, input: [{ role: "user", content: input }] }, edits);
}

/** A server-side conversation (`conversation: "conv_…"` or `{id}`) is the client's own conversation id. */
function conversationOf(body: JsonObject): string | undefined {
  const c = body.conversation;
  const id = isObject(c) ? c.id : c;
  return typeof id === "string" && id !== "" ? `conversation:${id}` : undefined;
}
