/**
 * How deep JSON nests, measured in linear time without recursion. JSON.parse copes with any depth, but
 * everything after it that walks a value recursively (JSON.stringify, the YAML writer, structuredClone)
 * overflows the stack from some thousands of levels, and slows down long before. So every surface that
 * takes JSON from outside (the gateway's chat bodies, the API's bodies, imported books) measures first
 * and refuses, or passes through, what is nested deeper than it can handle. Nothing here throws.
 */

/** Deep enough for any card, book or API body; the gateway allows more for chat bodies it passes on. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether JSON text nests arrays and objects more than `limit` deep. Brackets inside strings do not
 * count; strings are skipped with a native search for their closing quote, so a megabyte of base64
 * costs next to nothing. Bytes of multi-byte UTF-8 characters are never ASCII, so bytes suffice.
 */
export function nestsDeeperThan(bytes: Uint8Array, limit: number): boolean {
  // Each level opens with a byte of its own: a shorter text cannot nest that deep (most chat bodies).
  if (bytes.length <= limit) return false;
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === QUOTE) i = closingQuote(bytes, i);
    else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) depth--;
  }
  return false;
}

/** Index of the quote that ends the string opened at `start`; the end of the text when none does. */
function closingQuote(bytes: Uint8Array, start: number): number {
  let i = start;
  for (;;) {
    i = bytes.indexOf(QUOTE, i + 1);
    if (i === -1) return bytes.length;
    let slashes = 0;
    while (bytes[i - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return i;
  }
}

/**
 * Whether a parsed value (arrays and plain objects) nests more than `limit` deep, the value itself being
 * level 1 when it is an array or object. Iterative, and each object is visited once per path reaching
 * it, stopping at the limit: linear in the value's size for anything that came from JSON.
 */
export function valueDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [v, depth] = next;
    if (v === null || typeof v !== "object") continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}
