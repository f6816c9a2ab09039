// The files SillyTavern's World Info import accepts beside its own (RisuAI, NovelAI, Agnai, KoboldAI),
// the containers real cards come in (a CHARX after a JPEG, base64 with line breaks), and the real
// books from the field, read as SillyTavern reads them.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { WORLD_BOOKS } from "../../src/interop/_world-books.ts";
import { entriesToDrafts, type ParsedBook, parseBook } from "../../src/interop/index.ts";
import { CARD, png, zip } from "../fixtures/interop/make.ts";
import { HAVE_REAL, real, throughFile } from "./_support.ts";

const HERE = path.join(import.meta.dir, "fixtures");

function fixture(name: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(path.join(HERE, name)));
}

/**
 * One descriptor per format SillyTavern's World Info import converts (src/interop/_world-books.ts):
 * the fixture of a real book of it. A new format adds its row there and its descriptor here.
 */
const WORLD_BOOK_FILES = [
  { format: "risu", label: "RisuAI", file: "risu-lorebook.json" },
  { format: "novelai", label: "NovelAI", file: "novel.lorebook" },
  { format: "agnai", label: "Agnai", file: "agnai-memory.json" },
  { format: "kobold", label: "KoboldAI", file: "kobold-worldinfo.json" },
] as const;

async function read(name: string): Promise<ParsedBook> {
  return parseBook(fixture(name), { filename: name });
}

describe("books SillyTavern's World Info import converts", () => {
  test("a RisuAI lorebook: always-active entries → context: always, comma keys split, folders skipped", async () => {
    const book = await read("risu-lorebook.json");
    expect(book.format).toBe("risu");
    expect(book.entries.map((e) => e.title)).toEqual(["Ground rules", "Harbor", "Lantern"]);
    expect(book.skipped).toEqual([{ title: "Places", reason: "a RisuAI folder, not an entry" }]);
    const [rules, harbor, lantern] = book.entries;
    expect(rules).toMatchObject({ keywords: [], rules: { context: "always", order: 100 } });
    expect(harbor).toMatchObject({
      keywords: ["harbor", "port"],
      secondary: { any: ["night", "fog"] },
      rules: { order: 50, probability: 40 },
    });
    expect(harbor!.rules.context).toBeUndefined();
    // useRegex: the author's keys are patterns (SillyTavern's converter drops the flag).
    expect(lantern!.rules).toMatchObject({ regex: true });
    expect(lantern!.foreign).toMatchObject({ mode: "normal", bookVersion: 2 });
  });

  test("a RisuAI entry that is not selective keeps its secondary keys aside, as SillyTavern does", async () => {
    const book = await parseBook(
      { type: "risu", ver: 1, data: [{ key: "a", secondkey: "b", selective: false, content: "A" }] },
      { filename: "r.json" },
    );
    expect(book.entries[0]!.secondary.any).toEqual([]);
  });

  test("a NovelAI lorebook: display names, text, budget priority as order, forceActivation as always", async () => {
    const book = await read("novel.lorebook");
    expect(book.format).toBe("novelai");
    const [harbor, weather] = book.entries;
    expect(harbor).toMatchObject({
      title: "Harbor",
      keywords: ["harbor", "/ports?/i"],
      body: "The old harbor smells of tar.",
      enabled: true,
      rules: { order: 400 },
    });
    expect(weather).toMatchObject({
      title: "Weather",
      enabled: false,
      rules: { context: "always", order: -100 },
    });
    expect(harbor!.foreign).toMatchObject({ searchRange: 1000, contextConfig: { budgetPriority: 400 } });
  });

  test("an Agnai memory book: name, entry, keywords, weight as order, enabled", async () => {
    const book = await read("agnai-memory.json");
    expect(book).toMatchObject({ format: "agnai", name: "Harbor memories" });
    expect(book.entries.map((e) => [e.title, e.keywords, e.body, e.enabled, e.rules.order])).toEqual([
      ["Harbor", ["harbor", "port"], "The old harbor smells of tar.", true, 5],
      ["Lantern", ["lantern"], "A green lantern.", false, 2],
    ]);
    expect(book.entries.map((e) => e.priority)).toEqual([10, 1]);
  });

  test("KoboldAI world info: comma-joined keys, selective secondary keys, constant; folders ride along", async () => {
    const book = await read("kobold-worldinfo.json");
    expect(book.format).toBe("kobold");
    const [harbor, weather] = book.entries;
    expect(harbor).toMatchObject({
      title: "Harbor",
      keywords: ["harbor", "port"],
      secondary: { any: ["night"] },
    });
    expect(harbor!.foreign).toMatchObject({ folder: 1, num: 0, uid: 4012 });
    expect(weather).toMatchObject({ title: "Weather", keywords: [], rules: { context: "always" } });
  });

  test("a KoboldAI story's worldinfo list is read too", async () => {
    const story = {
      gamestarted: true,
      worldinfo: [{ key: "harbor", keysecondary: "", content: "H", comment: "" }],
    };
    const book = await parseBook(story, { filename: "story.json" });
    expect(book).toMatchObject({ format: "kobold", entries: [{ title: "harbor", body: "H" }] });
  });

  test("every converted format has a descriptor here, and a descriptor names a format there is", () => {
    expect(WORLD_BOOK_FILES.map((d) => d.format).sort()).toEqual(WORLD_BOOKS.map((f) => f.format).sort());
  });

  test.each(WORLD_BOOK_FILES)("a $label book is read as $format", async ({ format, file }) => {
    expect((await read(file)).format).toBe(format);
  });

  test.each(WORLD_BOOK_FILES)(
    "a $label book's cards keep their foreign fields under st:",
    async ({ file }) => {
      const book = await read(file);
      expect(book.namespace).toBe("st");
      const drafts = entriesToDrafts(book.entries, { kind: "entry", namespace: "st" });
      for (const d of drafts) expect(d.frontmatter.st).toBeDefined();
    },
  );
});

describe("a character card as RisuAI writes it", () => {
  test("constant entries are always on; use_regex and case_sensitive count; decorators are kept", async () => {
    const book = await read("risu-card.json");
    expect(book).toMatchObject({ format: "card-json", version: "V3", character: "Mira" });
    const [rules, lamp] = book.entries;
    expect(rules!.rules).toMatchObject({ context: "always", case_sensitive: false });
    expect(lamp).toMatchObject({
      body: "The lamp turns every ten seconds.",
      decorators: ["@@depth 2", "@@role system"],
      priority: 5,
      rules: { regex: true, case_sensitive: true, order: 20 },
    });
  });

  test("the book's settings are reported, and recursive_scanning: false makes every card prevent recursion", async () => {
    const book = await read("risu-card.json");
    expect(book.settings).toEqual({
      name: "Mira's book",
      scanDepth: 8,
      tokenBudget: 1200,
      recursiveScanning: false,
    });
    for (const e of book.entries) expect(e.rules.prevent_recursion).toBe(true);
  });
});

describe("containers real cards come in", () => {
  const cardJson = Buffer.from(JSON.stringify(CARD));

  test("a CHARX whose zip follows a JPEG image (as RisuAI writes it) is read", async () => {
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xd9,
    ]);
    const archive = zip([{ name: "card.json", data: cardJson }]);
    const bytes = new Uint8Array(Buffer.concat([jpeg, archive]));
    const book = await parseBook(bytes, { filename: "mira.charx" });
    expect(book).toMatchObject({ format: "charx", name: "Fixture book" });
    expect(book.entries).toHaveLength(2);
  });

  test("bytes that merely contain a zip signature are not taken for a CHARX", async () => {
    const bytes = new Uint8Array(
      Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.from("PK\x05\x06 not a zip")]),
    );
    await expect(parseBook(bytes, { filename: "x.jpg" })).rejects.toThrow(/neither PNG, CHARX nor UTF-8/);
  });

  test.each([
    ["line breaks every 76 characters", (b: string) => b.replace(/(.{76})/g, "$1\r\n")],
    ["spaces and a trailing newline", (b: string) => `${b.replace(/(.{40})/g, "$1 ")}\n`],
    ["the padding left off", (b: string) => b.replace(/=+$/, "")],
  ])("base64 in a PNG chunk with %s is read, as SillyTavern reads it", async (_what, mangle) => {
    const b64 = mangle(cardJson.toString("base64"));
    const text = (keyword: string, value: string) => {
      const t = Buffer.from("tEXt");
      const data = Buffer.from(`${keyword}\0${value}`, "latin1");
      const len = Buffer.alloc(4);
      len.writeUInt32BE(data.length);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(zlib.crc32(Buffer.concat([t, data])));
      return new Uint8Array(Buffer.concat([len, t, data, crc]));
    };
    const book = await parseBook(png([text("chara", b64)]), { filename: "x.png" });
    expect(book.entries).toHaveLength(2);
  });
});

describe.skipIf(!HAVE_REAL)("the real books from the field", () => {
  test("the Chinese Eldoria book's 15 constant entries import as context: always", async () => {
    const book = await parseBook(real("sora_Eldoria_V10.6.0.json"), { filename: "sora.json" });
    expect(book.entries).toHaveLength(761);
    const always = book.entries.filter((e) => e.rules.context === "always");
    expect(always).toHaveLength(15);
    expect(always.filter((e) => e.keywords.length === 0)).toHaveLength(14);
  });

  test("the Chinese book's one-character 玲 entries state SillyTavern's shipped whole-word setting", async () => {
    // Its rule counts only ASCII letters, digits and _ as word characters, so 玲 fires inside Chinese text.
    const book = await parseBook(real("sora_Eldoria_V10.6.0.json"), { filename: "sora.json" });
    const ling = book.entries.filter((e) => e.keywords.includes("玲"));
    expect(ling.length).toBeGreaterThanOrEqual(2);
    for (const e of ling) expect(e.rules.whole_words).toBe(true);
  });

  test("the Chinese book's positions and insertion depths become placements", async () => {
    const book = await parseBook(real("sora_Eldoria_V10.6.0.json"), { filename: "sora.json" });
    const places = new Set(book.entries.map((e) => e.rules.position));
    expect(places).toEqual(new Set(["before_char", "after_char", "at_depth"]));
    for (const e of book.entries.filter((x) => x.rules.position === "at_depth")) {
      expect(typeof e.rules.depth).toBe("number");
    }
  });

  test("the real RisuAI export's 8 always-active entries import as context: always", async () => {
    const book = await parseBook(real("dootaang_lorebook_export.json"), { filename: "dootaang.json" });
    expect(book.format).toBe("risu");
    expect(book.entries).toHaveLength(13);
    expect(book.entries.filter((e) => e.rules.context === "always")).toHaveLength(8);
  });

  test("the real Seraphina card's book reads the same from its PNG as its cards say", async () => {
    const book = await parseBook(real("st-card-Seraphina.png"), { filename: "seraphina.png" });
    expect(book.character).toBe("Seraphina");
    const card = throughFile(entriesToDrafts(book.entries, { kind: "entry", namespace: "card" })[0]!);
    expect(card.rules).toEqual({
      order: 100,
      position: "before_char",
      group_scoring: false,
      whole_words: true,
    });
  });
});
