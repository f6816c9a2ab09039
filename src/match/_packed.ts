/**
 * A list of strings kept as one block of UTF-16 code units and their offsets, so a snapshot's terms
 * and card paths are used straight from the file's bytes: a cold process decodes only the few strings
 * a lookup touches (the terms that hit, the paths of the cards that fired), never the whole list.
 * A plain string[] satisfies `Strings` too (Array's `at` and `length`).
 */

export interface Strings {
  readonly length: number;
  at(index: number): string | undefined;
}

/** Made on first use: constructing a UTF-16 decoder costs a cold start over a millisecond. */
let utf16: TextDecoder | undefined;

export class PackedStrings implements Strings {
  /** String i is chars[offsets[i] .. offsets[i + 1]). */
  constructor(
    readonly offsets: Int32Array,
    readonly chars: Uint16Array,
  ) {}

  static pack(list: Strings): PackedStrings {
    const offsets = new Int32Array(list.length + 1);
    let total = 0;
    for (let i = 0; i < list.length; i++) {
      offsets[i] = total;
      total += list.at(i)!.length;
    }
    offsets[list.length] = total;
    const chars = new Uint16Array(total);
    for (let i = 0; i < list.length; i++) {
      const s = list.at(i)!;
      const at = offsets[i]!;
      for (let j = 0; j < s.length; j++) chars[at + j] = s.charCodeAt(j);
    }
    return new PackedStrings(offsets, chars);
  }

  get length(): number {
    return this.offsets.length - 1;
  }

  at(index: number): string | undefined {
    if (index < 0 || index >= this.length) return undefined;
    const part = this.chars.subarray(this.offsets[index]!, this.offsets[index + 1]!);
    // Short strings (terms, paths) decode quicker by hand than through a decoder call.
    if (part.length <= 64) return String.fromCharCode.apply(null, part as unknown as number[]);
    utf16 ??= new TextDecoder("utf-16le");
    return utf16.decode(new Uint8Array(part.buffer, part.byteOffset, part.byteLength));
  }
}

/** Indices of `list` in code-unit order of their strings, for `findIn`. */
export function sortedOrder(list: Strings): Int32Array {
  const order = Array.from({ length: list.length }, (_, i) => i);
  const keys = order.map((i) => list.at(i)!);
  order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : a - b));
  return Int32Array.from(order);
}

/** The index of `value` in `list` (binary search over `order` from `sortedOrder`), or -1. */
export function findIn(list: Strings, order: Int32Array, value: string): number {
  let lo = 0;
  let hi = order.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = list.at(order[mid]!)!;
    if (at === value) return order[mid]!;
    if (at < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
