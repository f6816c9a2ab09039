/**
 * What both adapters share: the neutral view of a chat body (one entry per message, same indices as
 * the body), the edits the gateway makes to it, and the helpers that read text out of content that is
 * either a string or an array of parts. Only `text` parts are read; images, tool calls and tool
 * results are never looked at or changed.
 */

import type { Placement } from "../state/index.ts";

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
  /** A hash of message `i` as the client sent it (role and content, cache hints ignored). */
  hash(i: number): string;
}

/** Bytes to add: `text` (a wrapped block) placed relative to the original message at `anchor`. */
export interface Edit {
  anchor: number;
  place: Placement;
  text: string;
}

export interface Adapter {
  name: "openai" | "anthropic";
  /** Request paths this adapter injects into (POST only). */
  paths: readonly string[];
  /** Where `--inject system` puts cards for this protocol. */
  systemPlace: Placement;
  /** The view of a body, or null when its shape is not one we recognise (it is then forwarded as is). */
  read(body: unknown): ChatView | null;
  /** A new body with the edits applied; the input is not modified. Edits refer to original indices. */
  apply(body: JsonObject, edits: readonly Edit[]): JsonObject;
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
    if (part.type === "text" && typeof part.text === "string") texts.push(part.text);
  }
  return texts.join("\n");
}

/** Cache hints move between messages from one request to the next; they are not content. */
function withoutCacheHints(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  return content.map((part) => {
    if (!isObject(part) || !("cache_control" in part)) return part;
    const { cache_control: _, ...rest } = part;
    return rest;
  });
}

export function hashMessage(role: string, content: unknown): string {
  const canonical = JSON.stringify([role, withoutCacheHints(content) ?? null]);
  return new Bun.CryptoHasher("sha256").update(canonical).digest("hex").slice(0, 32);
}

/** A view over `messages` with hashes computed on demand (a body may carry megabytes of images). */
export function makeView(system: string, raw: readonly JsonObject[], messages: ChatMessage[]): ChatView {
  const cache = new Map<number, string>();
  return {
    system,
    messages,
    hash(i) {
      let h = cache.get(i);
      if (h === undefined) {
        const m = raw[i];
        h = m === undefined ? "" : hashMessage(String(m.role), m.content);
        cache.set(i, h);
      }
      return h;
    },
  };
}

/** Content with `block` in front: a string stays a string; an array gets a new text part at `at`. */
export function prefixContent(content: Json | undefined, block: string, at = 0): Json {
  if (typeof content === "string") return block + GAP + content;
  if (Array.isArray(content)) {
    const part: JsonObject = { type: "text", text: block + GAP };
    return [...content.slice(0, at), part, ...content.slice(at)];
  }
  return block;
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
