/**
 * The canonical form of a chat request, as the replay guarantee is stated: what the model reads, not
 * how the client happened to shape it. A plain string is one text part; `input_text`/`output_text`
 * parts are text parts; a string Responses `input` is one user message; cache hints (`cache_control`)
 * are not content. Parts are never merged: a block that went in as its own part must come back as
 * its own part. Each protocol's descriptor makes its canonical form (protocols/, `canonical`); this is
 * what the tests that replay real client traffic through the gateway do with it.
 */

import type { Markers } from "../../src/inject/index.ts";
import type { CanonicalBody } from "./protocols.ts";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

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
