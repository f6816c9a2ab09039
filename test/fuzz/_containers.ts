/**
 * Character card containers for the interop fuzz suites. PNG: the real Seraphina card, a small PNG
 * around its JSON and the bad fixtures, mutated byte by byte or chunk by chunk (written with valid
 * CRCs, so a mutation reaches the card JSON inside). CHARX: zips built with zip.js around mutated card
 * JSON and odd entry names, then cut short or flipped; and the bad fixtures, mutated.
 */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { TextReader, Uint8ArrayReader, Uint8ArrayWriter, ZipWriter } from "@zip.js/zip.js";
import fc from "fast-check";
import { anyString, mutatedBytes, mutatedJson, SPECIALS, shortString, sometimes } from "./_arbitraries.ts";
import { FIXTURE_DIR, HAVE_REAL, REAL_DIR, realJson } from "./_books.ts";

const fixture = (dir: string, name: string) => new Uint8Array(fs.readFileSync(path.join(dir, name)));

// --- PNG -------------------------------------------------------------------------------------------

interface Chunk {
  type: string;
  data: Uint8Array;
}

/** Chunks read loosely (no CRC check): the test's own reader, so a reader bug cannot hide here. */
function chunksOf(png: Uint8Array): Chunk[] {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const out: Chunk[] = [];
  for (let pos = 8; pos + 12 <= png.length; ) {
    const len = view.getUint32(pos);
    out.push({
      type: String.fromCharCode(...png.subarray(pos + 4, pos + 8)),
      data: png.slice(pos + 8, pos + 8 + len),
    });
    pos += 12 + len;
  }
  return out;
}

function pngOf(chunks: Chunk[], lengthLie?: { index: number; value: number }): Uint8Array {
  const parts: Uint8Array[] = [Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)];
  chunks.forEach((c, i) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(lengthLie?.index === i ? lengthLie.value >>> 0 : c.data.length, 0);
    head.write(c.type.padEnd(4, "x").slice(0, 4), 4, "latin1");
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), c.data])) >>> 0, 0);
    parts.push(head, c.data, crc);
  });
  return Buffer.concat(parts);
}

const latin1 = (s: string) => Buffer.from(s, "latin1");
const textChunk = (keyword: string, text: string): Chunk => ({
  type: "tEXt",
  data: latin1(`${keyword}\0${text}`),
});

const BASE_CARD = HAVE_REAL ? realJson("st-card-Seraphina.chara.json") : { spec: "chara_card_v2", data: {} };
const cardText = fc.oneof(
  {
    weight: 4,
    arbitrary: mutatedJson(BASE_CARD).map((v) => JSON.stringify(v) ?? "null"),
  },
  { weight: 1, arbitrary: anyString },
);

/** What a card chunk carries: base64 of card JSON (mutated), of other text, or not base64 at all. */
const payload = fc.oneof(
  { weight: 5, arbitrary: cardText.map((t) => Buffer.from(t, "utf8").toString("base64")) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString("base64")) },
  { weight: 1, arbitrary: cardText.map((t) => Buffer.from(t, "utf8").toString("base64").replace(/=+$/, "")) },
  { weight: 1, arbitrary: shortString },
);

const keyword = fc.constantFrom(
  "chara",
  "ccv3",
  "CHARA",
  "Ccv3",
  "chara\0x",
  "",
  "comment",
  ...SPECIALS.slice(0, 8),
);

type ChunkOp =
  | { op: "drop" | "dup"; at: number }
  | { op: "swap"; at: number; to: number }
  | { op: "text"; at: number; keyword: string; payload: string }
  | { op: "raw"; at: number; type: string; data: Uint8Array };

const chunkOp: fc.Arbitrary<ChunkOp> = fc.oneof(
  fc.record({ op: fc.constantFrom("drop" as const, "dup" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("swap" as const), at: fc.nat(), to: fc.nat() }),
  { weight: 4, arbitrary: fc.record({ op: fc.constant("text" as const), at: fc.nat(), keyword, payload }) },
  fc.record({
    op: fc.constant("raw" as const),
    at: fc.nat(),
    type: fc.constantFrom("IHDR", "IEND", "iTXt", "zTXt", "tEXt", "ab1d", "IDAT", "\0\0\0\0"),
    data: fc.uint8Array({ maxLength: 32 }),
  }),
);

function applyChunkOps(base: Chunk[], ops: ChunkOp[]): Chunk[] {
  const chunks = [...base];
  for (const o of ops) {
    const i = chunks.length === 0 ? 0 : o.at % chunks.length;
    if (o.op === "drop") chunks.splice(i, 1);
    else if (o.op === "dup" && chunks[i]) chunks.splice(i, 0, chunks[i]!);
    else if (o.op === "swap" && chunks.length > 0) {
      const j = o.to % chunks.length;
      [chunks[i], chunks[j]] = [chunks[j]!, chunks[i]!];
    } else if (o.op === "text") {
      // Replace a card chunk when one is there, else insert before the chunk at `i`.
      const card = chunks.findIndex((c) => c.type === "tEXt");
      if (card >= 0 && o.at % 2 === 0) chunks[card] = textChunk(o.keyword, o.payload);
      else chunks.splice(Math.max(1, i), 0, textChunk(o.keyword, o.payload));
    } else if (o.op === "raw") chunks.splice(i, 0, { type: o.type, data: o.data });
  }
  return chunks;
}

/** A small PNG around the real card's JSON, so cases stay fast; the real 540 KB file is mutated too. */
const SMALL = pngOf([
  { type: "IHDR", data: Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0) },
  textChunk("chara", Buffer.from(JSON.stringify(BASE_CARD)).toString("base64")),
  { type: "IDAT", data: new Uint8Array(zlib.deflateSync(Uint8Array.of(0, 0, 0, 0, 0))) },
  { type: "IEND", data: new Uint8Array(0) },
]);

function pngBases(): Uint8Array[] {
  const bases = [
    SMALL,
    ...["bad-base64.png", "bad-crc.png", "truncated.png"].map((n) => fixture(FIXTURE_DIR, n)),
  ];
  if (HAVE_REAL) bases.push(fixture(REAL_DIR, "st-card-Seraphina.png"));
  return bases;
}

const lengthLie = sometimes(fc.record({ index: fc.nat(8), value: fc.nat() }), 10);

export const pngInput: fc.Arbitrary<Uint8Array> = fc.constantFrom(...pngBases()).chain((base) =>
  fc.oneof(
    // The card chunk replaced or joined by others: the JSON inside gets read.
    {
      weight: 4,
      arbitrary: fc
        .array(fc.record({ op: fc.constant("text" as const), at: fc.nat(), keyword, payload }), {
          minLength: 1,
          maxLength: 2,
        })
        .map((ops) => pngOf(applyChunkOps(chunksOf(base), ops))),
    },
    // Chunks dropped, repeated, swapped, added; now and then a length that lies.
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.array(chunkOp, { minLength: 1, maxLength: 4 }), lengthLie)
        .map(([ops, lie]) => pngOf(applyChunkOps(chunksOf(base), ops), lie)),
    },
    { weight: 1, arbitrary: mutatedBytes(base) },
  ),
);

// --- CHARX -----------------------------------------------------------------------------------------

const entryName = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "assets/icon/main.png",
      "x.txt",
      "card.json",
      "card.json/",
      "dir/",
      "Card.json",
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "../evil.md",
      "/abs.md",
      "a/../../evil",
      "C:\\evil",
      "a\\..\\..\\evil",
      "\u0000",
      "",
    ),
  },
  { weight: 1, arbitrary: shortString },
);

interface CharxSpec {
  card: string | null;
  others: { name: string; data: Uint8Array; level: number }[];
  bytes: "as-is" | "mutated";
}

const charxSpec = fc.record({
  card: fc.option(cardText, { freq: 8 }),
  others: fc.array(
    fc.record({ name: entryName, data: fc.uint8Array({ maxLength: 128 }), level: fc.constantFrom(0, 6) }),
    {
      maxLength: 3,
    },
  ),
});

async function zipOf(spec: Omit<CharxSpec, "bytes">): Promise<Uint8Array> {
  const writer = new ZipWriter(new Uint8ArrayWriter(), { useWebWorkers: false });
  if (spec.card !== null) await writer.add("card.json", new TextReader(spec.card));
  for (const o of spec.others) {
    // A name zip.js refuses to write (or a second card.json) is simply left out.
    await writer.add(o.name, new Uint8ArrayReader(o.data), { level: o.level }).catch(() => undefined);
  }
  return writer.close();
}

/** CHARX archives: built well around odd content, or built and then cut short or flipped. */
export const charxInput: fc.Arbitrary<Promise<Uint8Array>> = fc
  .tuple(
    charxSpec,
    fc.oneof(
      fc.constant({ flips: [] as [number, number][], cut: null as number | null }),
      fc.record({
        flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }),
        cut: fc.constant(null),
      }),
      fc.record({ flips: fc.constant([] as [number, number][]), cut: fc.nat() }),
    ),
  )
  .map(async ([spec, { flips, cut }]) => {
    const bytes = (await zipOf(spec)).slice();
    for (const [at, b] of flips) bytes[at % bytes.length] = b;
    return cut === null ? bytes : bytes.slice(0, Math.max(4, cut % bytes.length));
  });

export const fixtureCharx = fc
  .constantFrom(
    "encrypted.charx",
    "no-card-json.charx",
    "zip-bomb.charx",
    "zip-size-liar.charx",
    "zip-slip.charx",
  )
  .chain((n) => mutatedBytes(fixture(FIXTURE_DIR, n)));
