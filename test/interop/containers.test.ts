import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import zlib from "node:zlib";
import {
  type ExportCard,
  exportBook,
  importBook,
  parseBook,
  plainMapped,
  renderBook,
} from "../../src/interop/index.ts";
import { openVault } from "../../src/vault/index.ts";
import { CARD, png, zip } from "../fixtures/interop/make.ts";
import { bad, HAVE_REAL, real, tempDir } from "./_support.ts";

type Raw = Record<string, unknown>;

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64");
}

function textChunk(keyword: string, value: string): Uint8Array {
  const data = Buffer.from(`${keyword}\0${value}`, "latin1");
  const type = Buffer.from("tEXt");
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([type, data])));
  return Buffer.concat([len, type, data, crc]);
}

/**
 * Chunk types and tEXt keywords of a PNG, in order, read by a parser of its own that checks what a
 * strict reader would (PNG spec 5 and 11.3.4.3): signature, every CRC, IHDR first, IEND last with
 * nothing after it, tEXt keywords of 1–79 printable Latin-1 characters followed by exactly one NUL,
 * and card payloads in strict base64.
 */
function chunkList(bytes: Uint8Array): { type: string; keyword?: string; text?: string }[] {
  const out: { type: string; keyword?: string; text?: string }[] = [];
  const buf = Buffer.from(bytes);
  expect(buf.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  let pos = 8;
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString("latin1", pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    expect([type, buf.readUInt32BE(pos + 8 + len)]).toEqual([
      type,
      zlib.crc32(buf.subarray(pos + 4, pos + 8 + len)),
    ]);
    if (type === "tEXt") {
      const nul = data.indexOf(0);
      const keyword = data.toString("latin1", 0, nul);
      const text = data.toString("latin1", nul + 1);
      expect(keyword).toMatch(/^[\x20-\x7e\xa1-\xff]{1,79}$/);
      expect(text.includes("\0")).toBe(false);
      if (["chara", "ccv3"].includes(keyword.toLowerCase())) {
        expect(text).toMatch(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
      }
      out.push({ type, keyword, text });
    } else out.push({ type });
    pos += 12 + len;
  }
  expect(pos).toBe(buf.length);
  expect([out[0]?.type, out.at(-1)?.type]).toEqual(["IHDR", "IEND"]);
  return out;
}

function decodeText(text: string | undefined): Raw {
  return JSON.parse(Buffer.from(text ?? "", "base64").toString("utf8"));
}

const aCard: ExportCard = {
  ...plainMapped({ title: "harbor", keywords: ["harbor"], priority: 10, body: "The old harbor." }),
  decorators: ["@@depth 2"],
  key: "harbor",
  kind: "entry",
  st: {},
  card: {},
};

describe("PNG cards", () => {
  test("ccv3 wins over chara, whatever the case of the keyword", async () => {
    const v3 = { ...CARD, spec: "chara_card_v3", spec_version: "3.0" };
    v3.data = { ...CARD.data, character_book: { ...CARD.data.character_book, name: "from ccv3" } };
    const file = png([textChunk("chara", b64(CARD)), textChunk("CCV3", b64(v3))]);
    expect(await parseBook(file, { filename: "x.png" })).toMatchObject({ version: "V3", name: "from ccv3" });
  });

  test("a PNG with only chara is read from chara", async () => {
    const book = await parseBook(png([textChunk("Chara", b64(CARD))]), { filename: "x.png" });
    expect(book).toMatchObject({ format: "card-png", version: "V2", name: "Fixture book" });
    expect(book.entries.map((e) => e.title)).toEqual(["harbor", "lantern"]);
  });

  test("a 13 MB chara chunk is read (a pattern with a repeated group once gave up on it)", async () => {
    const big = { ...CARD, data: { ...CARD.data, description: "a long description. ".repeat(500_000) } };
    const text = b64(big);
    expect(text.length).toBeGreaterThan(13_000_000);
    const book = await parseBook(png([textChunk("chara", text)]), { filename: "big.png" });
    expect(book.entries.map((e) => e.title)).toEqual(["harbor", "lantern"]);
  });

  test.each([
    ["a character outside the alphabet", "eyJh*", 'it holds "*" (U+002A) at character 5'],
    ["padding in the middle", "eyJh=eyJh", 'it holds "=" (U+003D) at character 5'],
    [
      "one character over",
      "eyJhY",
      "its length (5 characters, not counting padding) leaves one character over",
    ],
    ["padding that does not fit", "eyJhYm=", "its padding does not fit its length"],
  ])("base64 with %s is refused, saying so", async (_name, text, why) => {
    const err = await parseBook(png([textChunk("chara", text)]), { filename: "odd.png" }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toBe(`odd.png: PNG tEXt chunk "chara" is not valid base64: ${why}`);
  });

  test("a PNG without a card chunk is refused by name", async () => {
    await expect(parseBook(png([textChunk("Comment", "hello")]), { filename: "plain.png" })).rejects.toThrow(
      /plain\.png: .*no tEXt chunk "ccv3" or "chara"/,
    );
  });

  test("the exported PNG carries ccv3 and a V2 chara backfill, and keeps every other chunk of the base", async () => {
    const base = png([textChunk("Software", "paint"), textChunk("chara", b64(CARD))]);
    const out = await renderBook([aCard], "card-png", { base: { bytes: base, filename: "base.png" } });
    const chunks = chunkList(out.bytes);
    expect(chunks.map((c) => c.keyword ?? c.type)).toEqual([
      "IHDR",
      "IDAT",
      "Software",
      "chara",
      "ccv3",
      "IEND",
    ]);
    const v3 = decodeText(chunks.find((c) => c.keyword === "ccv3")?.text) as { data: Raw };
    const v2 = decodeText(chunks.find((c) => c.keyword === "chara")?.text) as { data: Raw };
    expect(v3).toMatchObject({ spec: "chara_card_v3", data: { name: "Fixture" } });
    expect(v2).toMatchObject({ spec: "chara_card_v2", spec_version: "2.0" });
    const v3Entry = (v3.data.character_book as { entries: Raw[] }).entries[0]!;
    const v2Entry = (v2.data.character_book as { entries: Raw[] }).entries[0]!;
    expect(v3Entry).toMatchObject({ content: "@@depth 2\nThe old harbor.", use_regex: false });
    expect(v2Entry.content).toBe("The old harbor.");
    expect(v2Entry).not.toHaveProperty("use_regex");
    expect(v2.data).not.toHaveProperty("group_only_greetings");
    expect(String(v2.data.creator_notes)).toContain("V3");
  });

  test("an exported PNG without a base is a valid image that imports again", async () => {
    const out = await renderBook([aCard], "card-png");
    expect(chunkList(out.bytes).map((c) => c.keyword ?? c.type)).toEqual([
      "IHDR",
      "IDAT",
      "chara",
      "ccv3",
      "IEND",
    ]);
    const again = await parseBook(out.bytes, { filename: "out.png" });
    expect(again.entries[0]).toMatchObject({ title: "harbor", body: "The old harbor.", priority: 10 });
  });

  test.skipIf(!HAVE_REAL)(
    "the real Seraphina PNG keeps its image data and gets both chunks replaced",
    async () => {
      const base = real("st-card-Seraphina.png");
      const out = await renderBook([aCard], "card-png", {
        base: { bytes: base, filename: "st-card-Seraphina.png" },
      });
      const before = chunkList(base).filter((c) => c.type !== "tEXt");
      const after = chunkList(out.bytes);
      expect(after.filter((c) => c.type !== "tEXt")).toEqual(before);
      expect(after.filter((c) => c.type === "tEXt").map((c) => c.keyword)).toEqual(["chara", "ccv3"]);
      const v3 = decodeText(after.find((c) => c.keyword === "ccv3")?.text) as { data: Raw };
      expect(v3.data.name).toBe("Seraphina");
      const book = await parseBook(out.bytes, { filename: "out.png" });
      expect(book).toMatchObject({ name: "Eldoria", entries: [{ title: "harbor" }] });
    },
  );
});

describe("the real Seraphina card through a vault and back", () => {
  test.skipIf(!HAVE_REAL)("its ccv3 card comes back field for field, its book in its own order", async () => {
    const dir = tempDir();
    try {
      // An empty folder is a vault with no cards, so the book holds only what was imported.
      const vault = openVault(dir);
      const base = { bytes: real("st-card-Seraphina.png"), filename: "st-card-Seraphina.png" };
      await importBook(vault, base.bytes, { filename: base.filename, kind: "people" });
      const out = await exportBook(vault, "card-png", { base });
      const after = chunkList(out.bytes);
      const original = decodeText(chunkList(base.bytes).find((c) => c.keyword === "ccv3")?.text);
      const back = decodeText(after.find((c) => c.keyword === "ccv3")?.text) as {
        data: { character_book: Raw };
      };
      // The one addition: a book's `extensions`, which spec 6.4 requires.
      expect(back.data.character_book.extensions).toEqual({});
      delete back.data.character_book.extensions;
      expect(back as Raw).toEqual(original);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("CHARX", () => {
  test("an exported CHARX holds card.json and imports again", async () => {
    const out = await renderBook([aCard], "charx");
    expect(out.contentType).toBe("application/zip");
    const book = await parseBook(out.bytes, { filename: "out.charx" });
    expect(book).toMatchObject({ format: "charx", version: "V3" });
    expect(book.entries[0]).toMatchObject({ title: "harbor", body: "The old harbor." });
  });

  test("a base CHARX's other files are carried into the export", async () => {
    const icon = png([]);
    const base = zip([
      { name: "card.json", data: Buffer.from(JSON.stringify(CARD)) },
      { name: "assets/icon/images/main.png", data: icon },
    ]);
    const out = await renderBook([aCard], "charx", { base: { bytes: base, filename: "base.charx" } });
    const { ZipReader, Uint8ArrayReader, Uint8ArrayWriter } = await import("@zip.js/zip.js");
    const entries = await new ZipReader(new Uint8ArrayReader(out.bytes)).getEntries();
    expect(entries.map((e) => e.filename)).toEqual(["card.json", "assets/icon/images/main.png"]);
    const icon2 = entries[1]!;
    if (icon2.directory) throw new Error("expected a file entry");
    const carried = await icon2.getData(new Uint8ArrayWriter());
    expect(Buffer.from(carried).equals(Buffer.from(icon))).toBe(true);
  });

  test("a size-liar that inflates to 64 MiB is stopped, not read to the end", async () => {
    const liar = zip([
      { name: "card.json", data: new Uint8Array(64 * 1024 * 1024).fill(0x20), declared: 100 },
    ]);
    await expect(parseBook(liar, { filename: "liar.charx" })).rejects.toThrow(
      /liar\.charx: .*card\.json.*size/,
    );
  });
});

describe("bad files are refused with the file's name and what is wrong", () => {
  test.each([
    ["truncated.png", "parse_error", /truncated\.png: PNG is truncated/],
    ["bad-crc.png", "parse_error", /bad-crc\.png: PNG chunk tEXt .* bad CRC/],
    ["bad-base64.png", "parse_error", /bad-base64\.png: PNG tEXt chunk "chara" is not valid base64/],
    ["invalid.json", "parse_error", /invalid\.json: .*not valid JSON/],
    ["no-lorebook.json", "parse_error", /no-lorebook\.json: .*without a lorebook/],
    ["zip-slip.charx", "parse_error", /zip-slip\.charx: ZIP entry name "\.\.\/\.\.\/evil\.txt" is unsafe/],
    [
      "zip-bomb.charx",
      "too_large",
      /zip-bomb\.charx: ZIP entry "card\.json" inflates to 67108864 bytes, over the limit/,
    ],
    ["zip-size-liar.charx", "parse_error", /zip-size-liar\.charx: ZIP entry "card\.json" .*size/],
    ["encrypted.charx", "parse_error", /encrypted\.charx: ZIP entry "card\.json" is encrypted/],
    ["no-card-json.charx", "parse_error", /no-card-json\.charx: CHARX has no card\.json/],
  ])("%s (%s)", async (name, code, message) => {
    const err = await parseBook(bad(name), { filename: name }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ name: "LoreError", code });
    expect((err as Error).message).toMatch(message);
  });

  test.each([
    [{ name: "Old", description: "" }, /is a V1 character card, which has no lorebook/],
    [{ hello: "world" }, /not a SillyTavern World Info book .*, a Character Card/],
    [{ spec: "chara_card_v2" }, /without a `data` object/],
  ])("%j is refused", async (value, message) => {
    await expect(parseBook(value, { filename: "upload.json" })).rejects.toThrow(message);
  });
});
