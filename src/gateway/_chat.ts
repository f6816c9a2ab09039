/**
 * What the adapters share: the neutral view of a chat body (one entry per message, same indices as
 * the body), the edits the gateway makes to it, and the helpers that read text out of content that is
 * either a string or an array of parts. Only text parts (`text`, and the Responses API's `input_text`
 * and `output_text`) are read; images, tool calls and tool results are never looked at or changed.
 *
 * Clients reshape messages between requests without changing what the model reads: Claude Code sends
 * its newest prompt as a one-part array with a cache hint and the same prompt as a plain string on the
 * next request. Hashes are therefore taken over a canonical form (a string is one text part, text-like
 * part types are one type, cache hints are dropped), and a block always goes into the first text of
 * the message, so the bytes the model reads are the same whichever shape the client chose.
 */

import { typedText } from "../recall/index.ts";
import type { Placement } from "../state/index.ts";
import { TextMemo } from "../text-memo.ts";
import type { UsageShape } from "./_usage.ts";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface ChatMessage {
  role: string;
  /** The text parts joined with "\n"; "" for a message without text. */
  text: string;
}

export interface ChatView {
  /** The system prompt as text (OpenAI system/developer messages, Anthropic `system`). */
  system: string;
  messages: ChatMessage[];
  /** A conversation id the client put in the body, named by its source (`claude-code:<uuid>`). */
  session?: string;
  /**
   * Why a body read whole has no place for cards (a text prompt with no template or marker): it is
   * passed through, and the reason said once on stderr.
   */
  notice?: string;
  /** A hash of message `i` as the client sent it (role and content, cache hints ignored). */
  hash(i: number): string;
  /**
   * What message `i` is, for finding it again on a later request wherever it sits (replay.ts): its
   * role and canonical content, with a user message's text reduced to what the person typed (a client
   * that drops or rewrites its own wrapper around earlier words has not changed the message).
   */
  key(i: number): string;
}

/** Bytes to add: `text` (a wrapped block) placed relative to the original message at `anchor`. */
export interface Edit {
  anchor: number;
  place: Placement;
  text: string;
  /** The role of the message a `before` / `after` edit becomes; absent = system. */
  role?: "system" | "user" | "assistant";
}

/**
 * Everything the gateway knows of one chat protocol. The rest of the gateway reads a protocol only
 * through this (docs/ARCHITECTURE.md, "Adding a protocol").
 */
export interface Adapter<Name extends string = string> {
  /** The protocol's name, as turn records and `stats` name it. */
  name: Name;
  /** Request paths this adapter injects into (POST only); the first is the one people are told. */
  paths: readonly string[];
  /** Paths with parts of their own (Gemini's model name and method), besides `paths`. */
  matches?(pathname: string): boolean;
  /** Where `--inject system` puts cards for this protocol. */
  systemPlace: Placement;
  /** The view of a body, or null when its shape is not one we recognise (it is then forwarded as is). */
  read(body: unknown): ChatView | null;
  /** A new body with the edits applied; the input is not modified. Edits refer to original indices. */
  apply(body: JsonObject, edits: readonly Edit[]): JsonObject;
  /** How its responses report what they cost (_usage.ts). */
  usage: UsageShape;
  /** The protocol takes a `prompt_cache_key` (OpenAI's chat completions and Responses). */
  promptCacheKey?: boolean;
  /** The protocol caches only at breakpoints the client sets (Anthropic's `cache_control`: _cache-steward.ts). */
  cacheBreakpoints?: boolean;
}

/** An adapter with its name kept as a literal, so the list of protocols (protocols.ts) names them. */
export function defineAdapter<const Name extends string>(adapter: Adapter<Name>): Adapter<Name> {
  return adapter;
}

/** Separator between an inserted block and the text it precedes or follows. */
export const GAP = "\n\n";

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The text of a content value, or null when the value is not content at all (a number, an object):
 * a string, an array of parts (text parts joined), or null/absent (no text).
 */
export function contentText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) return null;
  const texts: string[] = [];
  for (const part of content) {
    if (!isObject(part)) return null;
    if (isTextPart(part)) texts.push(part.text);
  }
  return texts.join("\n");
}

const TEXT_TYPES = new Set(["text", "input_text", "output_text"]);

function isTextPart(part: JsonObject): part is JsonObject & { text: string } {
  return typeof part.type === "string" && TEXT_TYPES.has(part.type) && typeof part.text === "string";
}

/**
 * Content as the model reads it: a list of parts, a string being one text part, every text-like part
 * one `text` type, and no cache hints (they move from message to message between requests).
 */
function canonicalContent(content: unknown): unknown {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return content ?? null;
  return content.map((part) => {
    if (!isObject(part)) return part;
    const { cache_control: _, ...rest } = part;
    return isTextPart(part) ? { ...rest, type: "text" } : rest;
  });
}

export function hashMessage(role: string, content: unknown): string {
  return sha(JSON.stringify([role, canonicalContent(content)]));
}

/** The identity of a message (`ChatView.key`): a user message's text parts as typed, empty ones dropped. */
export function messageKey(role: string, content: unknown): string {
  const canonical = canonicalContent(content);
  if (role !== "user" || !Array.isArray(canonical)) return sha(JSON.stringify([role, canonical]));
  const typed = canonical.flatMap((part) => {
    if (!isObject(part) || part.type !== "text" || typeof part.text !== "string") return [part];
    const text = typedText(part.text);
    return text === "" ? [] : [{ ...part, text }];
  });
  return sha(JSON.stringify(["user", typed]));
}

function sha(text: string): string {
  return Bun.CryptoHasher.hash("sha256", text, "hex").slice(0, 32);
}

/**
 * The keys and hashes of the user's and the model's messages met lately, by their text: a chat client
 * sends the whole history with every request, and replay looks up the message of each of its records,
 * so a conversation of 150 turns cost 300 hashes of JSON a request (400 µs) for messages whose keys it
 * had worked out the request before. A message in parts (images, cache hints) is worked out each time.
 */
const MEMO_CHARS = 1_000_000;
const MEMO_LONGEST = 64 * 1024;
type PerRole = Record<"user" | "assistant", TextMemo<string>>;
const perRole = (): PerRole => ({
  user: new TextMemo(MEMO_CHARS, MEMO_LONGEST),
  assistant: new TextMemo(MEMO_CHARS, MEMO_LONGEST),
});
const REMEMBERED = { hashes: perRole(), keys: perRole() };

function rememberedOf(memos: PerRole, of: typeof hashMessage, role: string, content: unknown): string {
  if (typeof content !== "string" || (role !== "user" && role !== "assistant")) return of(role, content);
  return memos[role].get(content, (text) => of(role, text));
}

/** A view over `messages` with hashes computed on demand (a body may carry megabytes of images). */
export function makeView(system: string, raw: readonly JsonObject[], messages: ChatMessage[]): ChatView {
  const hashes = new Map<number, string>();
  const keys = new Map<number, string>();
  const cached = (cache: Map<number, string>, i: number, of: typeof hashMessage, memos: PerRole) => {
    let h = cache.get(i);
    if (h === undefined) {
      const m = raw[i];
      h = m === undefined ? "" : rememberedOf(memos, of, String(m.role), m.content);
      cache.set(i, h);
    }
    return h;
  };
  return {
    system,
    messages,
    hash: (i) => cached(hashes, i, hashMessage, REMEMBERED.hashes),
    key: (i) => cached(keys, i, messageKey, REMEMBERED.keys),
  };
}

/**
 * Content with `block` in front of its first text at or after part `at`: a string stays a string, and
 * in an array the block joins that text part (its cache hint and every other part stay as they are).
 * A string and a one-part array therefore read the same after the edit, which is what lets replay
 * survive a client that switches between the two. Without a text part, the block becomes a new part
 * of `textType` at `at`.
 */
export function prefixContent(content: Json | undefined, block: string, at = 0, textType = "text"): Json {
  if (typeof content === "string") return block + GAP + content;
  if (!Array.isArray(content)) return block;
  const i = content.findIndex((part, n) => n >= at && isObject(part) && isTextPart(part));
  if (i === -1) return [...content.slice(0, at), { type: textType, text: block }, ...content.slice(at)];
  const part = content[i] as JsonObject & { text: string };
  return content.map((p, n) => (n === i ? { ...part, text: block + GAP + part.text } : p));
}

/** Groups edits by anchor, keeping their order. */
export function byAnchor(edits: readonly Edit[]): Map<number, Edit[]> {
  const map = new Map<number, Edit[]>();
  for (const e of edits) {
    const list = map.get(e.anchor);
    if (list) list.push(e);
    else map.set(e.anchor, [e]);
  }
  return map;
}

/** Roles that carry a system prompt in OpenAI's APIs (Chat Completions, Responses). */
export const SYSTEM_ROLES: ReadonlySet<string> = new Set(["system", "developer"]);

/**
 * The messages of a body's list, with the role each plays (`roleOf`; a tool's answer is not the user
 * speaking) and its text; null when an entry is not a message with content we can read.
 */
export function readMessages(
  list: readonly Json[],
  roleOf: (m: JsonObject & { role: string }) => string,
): { raw: JsonObject[]; messages: ChatMessage[] } | null {
  const raw: JsonObject[] = [];
  const messages: ChatMessage[] = [];
  for (const m of list) {
    if (!isObject(m) || typeof m.role !== "string") return null;
    const text = contentText(m.content);
    if (text === null) return null;
    raw.push(m);
    messages.push({ role: roleOf(m as JsonObject & { role: string }), text });
  }
  return { raw, messages };
}

/** The message an inserted edit becomes (OpenAI's APIs): its role, system unless the card asked for another. */
export function systemMessage(e: Edit): JsonObject {
  return { role: e.role ?? "system", content: e.text };
}

/**
 * Edits applied to a list of messages (Chat Completions `messages`, Responses `input`), each kind in
 * the order given (the first edit listed ends up first):
 *   prefix        in front of its message's text (`prefix`)
 *   before/after  a new message (`message`) right before or after its message
 *   system_start  a new message at the very start of the list
 *   system        a new message after the leading system/developer messages (the system text's end)
 * Everything before an edit stays byte-identical.
 */
export function applyToList(
  list: readonly Json[],
  edits: readonly Edit[],
  prefix: (msg: JsonObject, block: string) => JsonObject,
  message: (e: Edit) => JsonObject = systemMessage,
): Json[] {
  const grouped = byAnchor(edits.filter((e) => e.place !== "system" && e.place !== "system_start"));
  const out: Json[] = [];
  list.forEach((item, i) => {
    const here = grouped.get(i) ?? [];
    let msg = item as JsonObject;
    for (const e of here.filter((e) => e.place === "prefix").reverse()) msg = prefix(msg, e.text);
    for (const e of here) if (e.place === "before") out.push(message(e));
    out.push(msg);
    for (const e of here) if (e.place === "after") out.push(message(e));
  });
  const leading = leadingSystem(list);
  const atEnd = edits.filter((e) => e.place === "system").map(message);
  const atStart = edits.filter((e) => e.place === "system_start").map(message);
  return [...atStart, ...out.slice(0, leading), ...atEnd, ...out.slice(leading)];
}

/** How many messages at the head of a list are system or developer messages (the system text). */
function leadingSystem(list: readonly Json[]): number {
  let n = 0;
  while (n < list.length && isObject(list[n]) && SYSTEM_ROLES.has(String((list[n] as JsonObject).role))) n++;
  return n;
}

/**
 * The view of a body whose conversation is its `messages` list of `{role, content}` (Chat Completions,
 * Ollama's chat): the system text is the messages whose role `isSystem` names.
 */
export function readMessageList(body: unknown, isSystem: (role: string) => boolean): ChatView | null {
  if (!isObject(body) || !Array.isArray(body.messages)) return null;
  const read = readMessages(body.messages, (m) => m.role);
  if (read === null) return null;
  const system = read.messages.filter((m) => isSystem(m.role)).map((m) => m.text);
  return makeView(system.join("\n"), read.raw, read.messages);
}

/** The edits applied to such a body's `messages`, a block going in front of its message's first text. */
export function applyToMessageList(body: JsonObject, edits: readonly Edit[]): JsonObject {
  const messages = applyToList(body.messages as Json[], edits, (m, block) => ({
    ...m,
    content: prefixContent(m.content, block),
  }));
  return { ...body, messages };
}
