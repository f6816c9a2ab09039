/**
 * A compiled matcher saved to disk, so a cold process (the hook, `try`) skips rebuilding the
 * automaton: on 10k cards that rebuild costs ~30 ms, loading the arrays back ~2 ms. The snapshot is
 * tied to the vault index `stamp` it was built for; any other stamp, a short read or a bad magic
 * number means "rebuild", never an error.
 *
 * The header also lists the vault path of each card the matcher was built from, in order, so a cold
 * process can fetch the metadata of just the cards that were hit.
 *
 * Layout: "LCM2", u32 header length, JSON header {stamp, paths, size, termCount, maxDepth, texts, lengths},
 * zero padding to a multiple of 4, then the Int32 arrays in header order (the automaton's, then the
 * table's: cardStart, cardList, regexCards, alwaysCards), the one-character flags, then the Uint16 edge
 * chars. A snapshot of another layout (an "LCM1" from before the regex and always lists) is rebuilt.
 */
import { Automaton, type AutomatonParts } from "./automaton.ts";
import type { TermTable } from "./table.ts";

const MAGIC = 0x324d434c; // "LCM2" little-endian

const INT_ARRAYS = ["root", "firstChild", "nextSibling", "fail", "output", "dictLink", "depth"] as const;
const TABLE_ARRAYS = ["cardStart", "cardList", "regexCards", "alwaysCards"] as const;
const INT_COUNT = INT_ARRAYS.length + TABLE_ARRAYS.length;

interface Header {
  stamp: string;
  paths: string[];
  size: number;
  termCount: number;
  maxDepth: number;
  texts: string[];
  /** Element counts of: the INT_ARRAYS, then the TABLE_ARRAYS, then single (bytes), edgeChar. */
  lengths: number[];
}

export interface Snapshot {
  table: TermTable;
  automaton: Automaton;
  /** Vault-relative path of card i of the matcher. */
  paths: string[];
}

export function saveSnapshot(stamp: string, snapshot: Snapshot): Uint8Array {
  const { table, automaton, paths } = snapshot;
  const parts = automaton.toParts();
  const ints: Int32Array[] = [...INT_ARRAYS.map((k) => parts[k]), ...TABLE_ARRAYS.map((k) => table[k])];
  const header: Header = {
    stamp,
    paths,
    size: parts.size,
    termCount: parts.termCount,
    maxDepth: table.maxDepth,
    texts: table.texts,
    lengths: [...ints.map((a) => a.length), table.single.length, parts.edgeChar.length],
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const start = align4(8 + json.length);
  const intBytes = ints.reduce((n, a) => n + a.byteLength, 0);
  const total = start + intBytes + align4(table.single.byteLength) + parts.edgeChar.byteLength;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, json.length, true);
  out.set(json, 8);
  let at = start;
  for (const a of ints) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += a.byteLength;
  }
  out.set(table.single, at);
  at += align4(table.single.byteLength);
  out.set(new Uint8Array(parts.edgeChar.buffer, parts.edgeChar.byteOffset, parts.edgeChar.byteLength), at);
  return out;
}

/** The table and automaton saved for `stamp`, or undefined when the bytes are for another vault state. */
export function loadSnapshot(bytes: Uint8Array, stamp: string): Snapshot | undefined {
  try {
    // Typed array views need 4-byte alignment: copy when the buffer does not start on one.
    const buf = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    if (buf.byteLength < 8 || view.getUint32(0, true) !== MAGIC) return undefined;
    const jsonLength = view.getUint32(4, true);
    const header = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + jsonLength))) as Header;
    if (header.stamp !== stamp || !Array.isArray(header.paths)) return undefined;
    let at = buf.byteOffset + align4(8 + jsonLength);
    const end = buf.byteOffset + buf.byteLength;
    const take = (n: number) => {
      if (at + n * 4 > end) throw new Error("short snapshot");
      const a = new Int32Array(buf.buffer, at, n);
      at += n * 4;
      return a;
    };
    if (header.lengths.length !== INT_COUNT + 2) return undefined;
    const ints = header.lengths.slice(0, INT_COUNT).map(take);
    const singleLength = header.lengths[INT_COUNT]!;
    const edgeLength = header.lengths[INT_COUNT + 1]!;
    if (at + align4(singleLength) + edgeLength * 2 > end) return undefined;
    const single = new Uint8Array(buf.buffer, at, singleLength);
    at += align4(singleLength);
    const edgeChar = new Uint16Array(buf.buffer, at, edgeLength);
    const int = (i: number) => ints[i]!;
    const [root, firstChild, nextSibling, fail, output, dictLink, depth] = INT_ARRAYS.map((_, i) => int(i));
    const [cardStart, cardList, regexCards, alwaysCards] = TABLE_ARRAYS.map((_, i) =>
      int(INT_ARRAYS.length + i),
    );
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
      edgeChar,
    };
    const table: TermTable = {
      texts: header.texts,
      single,
      cardStart: cardStart!,
      cardList: cardList!,
      maxDepth: header.maxDepth,
      regexCards: regexCards!,
      alwaysCards: alwaysCards!,
    };
    return { table, automaton: new Automaton(parts), paths: header.paths };
  } catch {
    return undefined;
  }
}

function align4(n: number): number {
  return (n + 3) & ~3;
}
