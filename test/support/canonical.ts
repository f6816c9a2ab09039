/**
 * The canonical form of a chat request, as the replay guarantee is stated: what the model reads, not
 * how the client happened to shape it. A plain string is one text part; `input_text`/`output_text`
 * parts are text parts; a string Responses `input` is one user message; cache hints (`cache_control`)
 * are not content. Parts are never merged: a block that went in as its own part must come back as
 * its own part. Used by the tests that replay real client traffic through the gateway.
 */

import type { Markers } from "../../src/inject/index.ts";

export type Protocol = "anthropic" | "openai" | "responses";

export interface CanonicalBody {
  /** The system prompt: Anthropic `system`, Responses `instructions` (OpenAI chat keeps it in items). */
  system: unknown;
  tools: unknown;
  /** Messages (or Responses input items) in order. */
  items: Record<string, unknown>[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export function protocolOf(path: string): Protocol {
  if (/\/responses(\?|$)/.test(path)) return "responses";
  if (/\/messages(\?|$)/.test(path)) return "anthropic";
  return "openai";
}

/** Content as a list of parts: strings become one text part, text-like parts become `text`. */
export function canonicalContent(content: unknown): unknown {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return content ?? null;
  return content.map((part) => {
    if (!isObj(part)) return part;
    const { cache_control: _, ...rest } = part;
    if (rest.type === "input_text" || rest.type === "output_text") return { ...rest, type: "text" };
    return rest;
  });
}

function canonicalItem(item: unknown): Obj {
  if (!isObj(item)) return { value: item };
  const out: Obj = { ...item };
  if ("content" in out) out.content = canonicalContent(out.content);
  // `{role, content}` and `{type: "message", role, content}` are the same Responses input item.
  if (out.type === "message") delete out.type;
  return out;
}

export function canonicalBody(protocol: Protocol, body: Obj): CanonicalBody {
  if (protocol === "responses") {
    const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
    return {
      system: body.instructions ?? null,
      tools: body.tools ?? null,
      items: Array.isArray(input) ? input.map(canonicalItem) : [],
    };
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return {
    system: protocol === "anthropic" ? canonicalContent(body.system ?? null) : null,
    tools: body.tools ?? null,
    items: messages.map(canonicalItem),
  };
}

/** Number of `cache_control` hints anywhere in a body. */
export function countCacheHints(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countCacheHints(v), 0);
  if (!isObj(value)) return 0;
  let n = "cache_control" in value ? 1 : 0;
  for (const v of Object.values(value)) n += countCacheHints(v);
  return n;
}

/**
 * The body without our blocks: a text part that is only a block (plus its separator) is dropped, a
 * block at the start or end of a text is cut out with its separator, and a message whose whole
 * content was a block (a `--inject system` message) is dropped.
 */
export function withoutBlocks(body: CanonicalBody, markers: Markers): CanonicalBody {
  const items: Obj[] = [];
  for (const item of body.items) {
    const content = stripContent(item.content, markers);
    if (
      Array.isArray(content) &&
      content.length === 0 &&
      Array.isArray(item.content) &&
      item.content.length > 0
    )
      continue;
    items.push("content" in item ? { ...item, content } : item);
  }
  return { ...body, system: stripContent(body.system, markers), items };
}

function stripContent(content: unknown, markers: Markers): unknown {
  if (typeof content === "string") return stripText(content, markers);
  if (!Array.isArray(content)) return content;
  const out: unknown[] = [];
  for (const part of content) {
    if (isObj(part) && part.type === "text" && typeof part.text === "string") {
      const text = stripText(part.text, markers);
      if (text === "" && part.text !== "") continue;
      out.push({ ...part, text });
    } else out.push(part);
  }
  return out;
}

/** Cuts every `open … close` block out of a text with the blank line that joined it to the rest. */
export function stripText(text: string, markers: Markers): string {
  let out = text;
  for (;;) {
    const start = out.indexOf(markers.open);
    if (start === -1) return out;
    const end = out.indexOf(markers.close, start);
    if (end === -1) return out;
    let from = start;
    let to = end + markers.close.length;
    if (out.startsWith("\n\n", to)) to += 2;
    else if (from >= 2 && out.slice(from - 2, from) === "\n\n") from -= 2;
    out = out.slice(0, from) + out.slice(to);
  }
}

/** Every block of ours in a body's text, in order, byte for byte (open marker through close marker). */
export function blocksIn(value: unknown, markers: Markers): string[] {
  const found: string[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === "string") {
      let from = 0;
      for (;;) {
        const start = v.indexOf(markers.open, from);
        if (start === -1) return;
        const end = v.indexOf(markers.close, start);
        if (end === -1) return;
        found.push(v.slice(start, end + markers.close.length));
        from = end + markers.close.length;
      }
    }
    if (Array.isArray(v)) v.forEach(visit);
    else if (isObj(v)) Object.values(v).forEach(visit);
  };
  visit(value);
  return found;
}

/** True when `earlier`'s items equal the first items of `later` (canonically). */
export function itemsArePrefix(earlier: CanonicalBody, later: CanonicalBody, from = 0): boolean {
  if (earlier.items.length > later.items.length) return false;
  for (let i = from; i < earlier.items.length; i++) {
    if (!Bun.deepEquals(earlier.items[i], later.items[i], true)) return false;
  }
  return true;
}
