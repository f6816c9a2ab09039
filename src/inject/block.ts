/**
 * Wrapping and stripping. A block is `open \n context \n close`; where it sits in a message (before it,
 * as its own part, appended to a system prompt) is the gateway's business, not ours. Rendering is
 * byte-stable: the same context always gives the same block.
 */

import type { Markers } from "./markers.ts";

/** The context between our markers. Trailing newlines of the context are folded into one. */
export function wrapBlock(context: string, markers: Markers): string {
  return `${markers.open}\n${context.replace(/\n+$/, "")}\n${markers.close}`;
}

export function hasBlock(text: string, markers: Markers): boolean {
  const start = text.indexOf(markers.open);
  return start !== -1 && text.indexOf(markers.close, start + markers.open.length) !== -1;
}

/** Every well-formed block of ours in a text, markers included, in order. */
export function findBlocks(text: string, markers: Markers): string[] {
  const found: string[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf(markers.open, from);
    if (start === -1) return found;
    const end = text.indexOf(markers.close, start + markers.open.length);
    if (end === -1) return found;
    from = end + markers.close.length;
    found.push(text.slice(start, from));
  }
}

/**
 * Removes every well-formed block of ours (an open marker followed later by our close marker) with the
 * blank lines that separated it from the text. An unclosed marker, someone else's marker, or a marker
 * with a different tag is left exactly as it is.
 */
export function stripBlocks(text: string, markers: Markers): string {
  if (!text.includes(markers.open)) return text;
  let out = "";
  let from = 0;
  for (;;) {
    const start = text.indexOf(markers.open, from);
    if (start === -1) break;
    const end = text.indexOf(markers.close, start + markers.open.length);
    if (end === -1) break;
    out += text.slice(from, start).replace(/\n+$/, "");
    from = end + markers.close.length;
    const rest = text.slice(from);
    const gap = /^\n*/.exec(rest)?.[0].length ?? 0;
    // Keep one separator when text continues on both sides of the removed block.
    from += gap;
    if (out !== "" && from < text.length) out += "\n\n";
  }
  return out + text.slice(from);
}
