/**
 * A compiled matcher saved to disk, so a cold process (the hook, `try`) skips rebuilding the
 * automaton, and uses it straight from the file's bytes: every part is a typed array over one buffer
 * (the caller may pass a memory-mapped file), the terms and the card paths are packed strings decoded
 * one at a time (_packed.ts), and nothing is built per node, term or card on load. So a cold start
 * touches only the pages a lookup walks, whatever the vault's size.
 *
 * The snapshot is tied to the vault index `stamp` it was built for; a short read or a bad magic
 * number means "rebuild", never an error. It lists the vault path of each card the matcher was built
 * from, in order, with that list's order by path, so a process can find a card's position by its
 * path (to set a changed card aside, recall/_compiled.ts) and fetch the metadata of just the cards
 * that were hit.
 *
 * Layout: "LCM3", u32 header length, JSON header {stamp, size, termCount, maxDepth, lengths}, zero
 * padding to a multiple of 4, then the Int32 arrays in INT order, the one-character flags (bytes,
 * padded to 4), then the Uint16 arrays in CHAR order. An older layout is rebuilt.
 */
import { PackedStrings, type Strings, sortedOrder } from "./_packed.ts";
import { Automaton, type AutomatonParts } from "./automaton.ts";
import type { TermTable } from "./table.ts";

const MAGIC = 0x334d434c; // "LCM3" little-endian

const AUTOMATON = ["root", "firstChild", "nextSibling", "fail", "output", "dictLink", "depth"] as const;
const TABLE = ["cardStart", "cardList", "regexCards", "alwaysCards"] as const;
// + term offsets, path offsets, paths in order, title offsets, titles in order
const INT_COUNT = AUTOMATON.length + TABLE.length + 5;
const CHAR_COUNT = 4; // edge chars, term chars, path chars, title chars

interface Header {
  stamp: string;
  size: number;
  termCount: number;
  maxDepth: number;
  /** Element counts: the INT arrays, the flags (bytes), then the CHAR arrays. */
  lengths: number[];
}

export interface Snapshot {
  /** The vault index version the snapshot was built for. */
  stamp: string;
  table: TermTable;
  automaton: Automaton;
  /** Vault-relative path of card i of the matcher. */
  paths: Strings;
  /** Card indices in code-unit order of their paths (`findIn` from _packed.ts). */
  byPath: Int32Array;
}

export function saveSnapshot(
  stamp: string,
  snapshot: Pick<Snapshot, "table" | "automaton" | "paths"> & { byPath?: Int32Array },
): Uint8Array {
  const { table, automaton, paths } = snapshot;
  const parts = automaton.toParts();
  const texts = PackedStrings.pack(table.texts);
  const packedPaths = PackedStrings.pack(paths);
  const titles = PackedStrings.pack(table.titles);
  const ints: Int32Array[] = [
    ...AUTOMATON.map((k) => parts[k]),
    ...TABLE.map((k) => table[k]),
    texts.offsets,
    packedPaths.offsets,
    snapshot.byPath ?? sortedOrder(paths),
    titles.offsets,
    table.titleOrder,
  ];
  const chars = [parts.edgeChar, texts.chars, packedPaths.chars, titles.chars];
  const header: Header = {
    stamp,
    size: parts.size,
    termCount: parts.termCount,
    maxDepth: table.maxDepth,
    lengths: [...ints.map((a) => a.length), table.single.length, ...chars.map((a) => a.length)],
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const start = align4(8 + json.length);
  const intBytes = ints.reduce((n, a) => n + a.byteLength, 0);
  const charBytes = chars.reduce((n, a) => n + a.byteLength, 0);
  const out = new Uint8Array(start + intBytes + align4(table.single.byteLength) + charBytes);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, json.length, true);
  out.set(json, 8);
  let at = start;
  const put = (a: ArrayBufferView, pad = 0) => {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += a.byteLength + pad;
  };
  for (const a of ints) put(a);
  put(table.single, align4(table.single.byteLength) - table.single.byteLength);
  for (const a of chars) put(a);
  return out;
}

/**
 * The snapshot in `bytes`, or undefined when they are damaged, of another layout, or (when `stamp` is
 * given) saved for another vault state.
 */
export function loadSnapshot(bytes: Uint8Array, stamp?: string): Snapshot | undefined {
  try {
    // Typed array views need 4-byte alignment: copy when the buffer does not start on one.
    const buf = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    if (buf.byteLength < 8 || view.getUint32(0, true) !== MAGIC) return undefined;
    const jsonLength = view.getUint32(4, true);
    const header = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + jsonLength))) as Header;
    if (typeof header.stamp !== "string" || (stamp !== undefined && header.stamp !== stamp)) return undefined;
    if (header.lengths?.length !== INT_COUNT + 1 + CHAR_COUNT) return undefined;
    let at = buf.byteOffset + align4(8 + jsonLength);
    const end = buf.byteOffset + buf.byteLength;
    const take = <T>(n: number, width: number, make: (at: number, n: number) => T): T => {
      if (at + n * width > end) throw new Error("short snapshot");
      const a = make(at, n);
      at += n * width;
      return a;
    };
    const ints = header.lengths
      .slice(0, INT_COUNT)
      .map((n) => take(n, 4, (a, k) => new Int32Array(buf.buffer, a, k)));
    const single = take(header.lengths[INT_COUNT]!, 1, (a, k) => new Uint8Array(buf.buffer, a, k));
    at = buf.byteOffset + align4(at - buf.byteOffset);
    const chars = header.lengths
      .slice(INT_COUNT + 1)
      .map((n) => take(n, 2, (a, k) => new Uint16Array(buf.buffer, a, k)));
    const int = (i: number) => ints[i]!;
    const [root, firstChild, nextSibling, fail, output, dictLink, depth] = AUTOMATON.map((_, i) => int(i));
    const [cardStart, cardList, regexCards, alwaysCards] = TABLE.map((_, i) => int(AUTOMATON.length + i));
    const base = AUTOMATON.length + TABLE.length;
    const parts: AutomatonParts = {
      size: header.size,
      termCount: header.termCount,
      root: root!,
      firstChild: firstChild!,
      nextSibling: nextSibling!,
      fail: fail!,
      output: output!,
      dictLink: dictLink!,
      depth: depth!,
      edgeChar: chars[0]!,
    };
    const table: TermTable = {
      texts: new PackedStrings(int(base), chars[1]!),
      single,
      cardStart: cardStart!,
      cardList: cardList!,
      maxDepth: header.maxDepth,
      regexCards: regexCards!,
      alwaysCards: alwaysCards!,
      titles: new PackedStrings(int(base + 3), chars[3]!),
      titleOrder: int(base + 4),
    };
    const paths = new PackedStrings(int(base + 1), chars[2]!);
    return { stamp: header.stamp, table, automaton: new Automaton(parts), paths, byPath: int(base + 2) };
  } catch {
    return undefined;
  }
}

function align4(n: number): number {
  return (n + 3) & ~3;
}
