import { describe, expect, test } from "bun:test";
import type { Secondary } from "../../src/card/types.ts";
import {
  detectVersion,
  type ExportCard,
  entriesToDrafts,
  parseBook,
  renderBook,
} from "../../src/interop/index.ts";
import { HAVE_REAL, json, real, throughFile } from "./_support.ts";

type Raw = Record<string, unknown>;

const sec = (s: Partial<Secondary>): Secondary => ({ all: [], any: [], not: [], ...s });

function v3Card(entries: Raw[], extra: Raw = {}): Raw {
  return {
    spec: "chara_card_v3",
    spec_version: "3.0",
    data: {
      name: "Test",
      extensions: {},
      character_book: { name: "Book", extensions: {}, entries },
      ...extra,
    },
  };
}

async function importEntry(entry: Raw, wrap: (e: Raw[]) => Raw = (e) => v3Card(e)) {
  const book = await parseBook(
    wrap([{ keys: ["k"], content: "c", enabled: true, insertion_order: 1, ...entry }]),
    {
      filename: "t.json",
    },
  );
  const draft = entriesToDrafts(book.entries, { kind: "entry", namespace: book.namespace })[0]!;
  return { draft, card: throughFile(draft) };
}

function card(over: Partial<ExportCard>): ExportCard {
  return {
    key: "k",
    kind: "entry",
    title: "t",
    keywords: ["k"],
    secondary: sec({}),
    scanDepth: null,
    priority: 0,
    enabled: true,
    body: "",
    st: {},
    card: {},
    ...over,
  };
}

async function exportEntry(c: ExportCard): Promise<Raw> {
  const out = json((await renderBook([c], "lorebook_v3")).bytes) as { data: { entries: Raw[] } };
  return out.data.entries[0]!;
}

describe("spec 13.1: which card version a JSON object is", () => {
  test.each([
    [{ spec: "chara_card_v3", data: {} }, "V3"],
    [{ spec: "chara_card_v2", data: {} }, "V2"],
    [{ name: "Old", description: "" }, "V1"],
    [{ name: "Both", data: {} }, "Unknown"],
    [{ spec: "something_else" }, "Unknown"],
  ])("%j is %s", (obj, version) => {
    expect(detectVersion(obj)).toBe(version as ReturnType<typeof detectVersion>);
  });
});

describe("character book entry → card", () => {
  test.each([
    ["keys → keywords", { keys: ["harbor", "port"] }, { keywords: ["harbor", "port"] }],
    [
      "secondary_keys + selective → any",
      { secondary_keys: ["x"], selective: true },
      { secondary: sec({ any: ["x"] }) },
    ],
    [
      "secondary_keys without selective count for nothing",
      { secondary_keys: ["x"], selective: false },
      { secondary: sec({}) },
    ],
    [
      "SillyTavern's extensions.selectiveLogic 1 → all",
      { secondary_keys: ["x"], selective: true, extensions: { selectiveLogic: 1 } },
      { secondary: sec({ all: ["x"] }) },
    ],
    [
      "SillyTavern's extensions.selectiveLogic 3 → not",
      { secondary_keys: ["x"], selective: true, extensions: { selectiveLogic: 3 } },
      { secondary: sec({ not: ["x"] }) },
    ],
    ["name → title", { name: "Harbor", comment: "note" }, { title: "Harbor" }],
    ["comment → title when there is no name", { comment: "Harbor" }, { title: "Harbor" }],
    ["insertion_order → priority", { insertion_order: 250 }, { priority: 250 }],
    [
      "priority → priority when there is no insertion_order",
      { insertion_order: undefined, priority: 9 },
      { priority: 9 },
    ],
    ["enabled: false → enabled: false", { enabled: false }, { enabled: false }],
    ["content → body", { content: "The old harbor." }, { body: "The old harbor." }],
    [
      "V3 decorators are not part of the body",
      { content: "@@depth 4\n@@role system\nThe harbor." },
      { body: "The harbor." },
    ],
  ])("%s", async (_name, entry, expected) => {
    expect((await importEntry(entry)).card).toMatchObject(expected);
  });

  test("constant, case_sensitive, use_regex, position and decorators are kept under card:", async () => {
    const entry = { constant: true, case_sensitive: true, use_regex: true, position: "after_char", id: 3 };
    const { draft } = await importEntry({ ...entry, content: "@@depth 4\nBody" });
    expect(draft.frontmatter.card).toEqual({ ...entry, decorators: ["@@depth 4"] });
  });

  test("a V2 card's content is taken literally, @@ lines included", async () => {
    const v2 = (e: Raw[]) => ({
      spec: "chara_card_v2",
      spec_version: "2.0",
      data: { character_book: { entries: e } },
    });
    expect((await importEntry({ content: "@@depth 4\nBody" }, v2)).card.body).toBe("@@depth 4\nBody");
  });
});

describe("card → character book entry", () => {
  test.each([
    ["keywords → keys", { keywords: ["harbor", "port"] }, { keys: ["harbor", "port"] }],
    [
      "any → secondary_keys, selective",
      { secondary: sec({ any: ["x"] }) },
      { secondary_keys: ["x"], selective: true },
    ],
    [
      "all → secondary_keys + selectiveLogic 1",
      { secondary: sec({ all: ["x"] }) },
      { secondary_keys: ["x"], extensions: { selectiveLogic: 1 } },
    ],
    [
      "not → secondary_keys + selectiveLogic 2",
      { secondary: sec({ not: ["x"] }) },
      { secondary_keys: ["x"], extensions: { selectiveLogic: 2 } },
    ],
    ["title → comment", { title: "Harbor" }, { comment: "Harbor" }],
    ["priority → insertion_order", { priority: 250 }, { insertion_order: 250 }],
    ["enabled → enabled", { enabled: false }, { enabled: false }],
    ["body → content", { body: "The old harbor." }, { content: "The old harbor." }],
    [
      "decorators go back in front of the content",
      { body: "B", card: { decorators: ["@@depth 4"] } },
      { content: "@@depth 4\nB" },
    ],
    [
      "card: fields come back",
      { card: { constant: true, use_regex: true, id: 3 } },
      { constant: true, use_regex: true, id: 3 },
    ],
    ["a new card gets use_regex: false (V3 requires it)", {}, { use_regex: false, extensions: {} }],
  ])("%s", async (_name, over, expected) => {
    expect(await exportEntry(card(over as Partial<ExportCard>))).toMatchObject(expected);
  });

  test("an entry comes back field for field, decorators and name included", async () => {
    const entry = {
      keys: ["a", "b"],
      content: "@@depth 4\nBody\nmore",
      extensions: { selectiveLogic: 3, depth: 4 },
      enabled: false,
      insertion_order: 7,
      case_sensitive: true,
      use_regex: true,
      constant: false,
      name: "N",
      comment: "C",
      priority: 2,
      id: "x1",
      selective: true,
      secondary_keys: ["s"],
      position: "after_char",
    };
    const { card: c } = await importEntry(entry);
    expect(await exportEntry(c)).toEqual(entry);
  });
});

describe("a whole book out", () => {
  async function exportAll(cards: ExportCard[]): Promise<Raw[]> {
    const out = json((await renderBook(cards, "lorebook_v3")).bytes) as { data: { entries: Raw[] } };
    return out.data.entries;
  }

  test("entries go back in the order of their ids, whatever order the vault lists them in", async () => {
    const cards = [2, 0, 1].map((id) => card({ title: `e${id}`, card: { id } }));
    const entries = await exportAll([card({ title: "new" }), ...cards]);
    expect(entries.map((e) => [e.id, e.comment])).toEqual([
      [0, "e0"],
      [1, "e1"],
      [2, "e2"],
      [3, "new"],
    ]);
  });

  test("a repeated id (two imported books) gets the next free number, and ids stay unique", async () => {
    const cards = [card({ title: "a0", card: { id: 0 } }), card({ title: "b0", card: { id: 0 } })];
    const entries = await exportAll([
      ...cards,
      card({ title: "s", card: { id: "x1" } }),
      card({ title: "n" }),
    ]);
    expect(entries.map((e) => [e.id, e.comment])).toEqual([
      [0, "a0"],
      [1, "b0"],
      ["x1", "s"],
      [2, "n"],
    ]);
  });

  test("repeated and CRLF decorator lines come back exactly", async () => {
    const content = "@@additional_keys a\r\n@@additional_keys a\r\n@@depth 2\r\nBody\r\n";
    const { card: c } = await importEntry({ content });
    expect((await exportEntry(c)).content).toBe(content);
  });
});

describe("card files", () => {
  test("a lorebook_v3 export is read", async () => {
    const book = await parseBook(
      { spec: "lorebook_v3", data: { entries: [{ keys: ["a"], content: "A" }] } },
      { filename: "b.json" },
    );
    expect(book).toMatchObject({ format: "lorebook_v3", entries: [{ title: "a", body: "A" }] });
  });

  test("a card newer than V3 is read with a warning", async () => {
    const book = await parseBook({ ...v3Card([]), spec_version: "3.1" }, { filename: "n.json" });
    expect(book.warnings[0]).toContain("3.1");
  });

  test.each([
    ["an object whose toString is not a function", { toString: 0 }],
    ["a list", ["3.0"]],
    ["a boolean", true],
  ])(
    "a card whose spec_version is %s is refused as invalid_input naming the field",
    async (_what, specVersion) => {
      const card = { ...v3Card([]), spec_version: specVersion };
      const err = await parseBook(card, { filename: "n.json" }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "invalid_input", message: expect.stringContaining("spec_version") });
    },
  );

  test("a book nested deeper than 64 levels is refused as invalid_input; 64 levels are read", async () => {
    const deep = (depth: number) => {
      let v: unknown = "x";
      for (let i = 0; i < depth; i++) v = [v];
      return v;
    };
    // The book, `entries`, the entry: three levels above the field.
    const book = (depth: number) => ({ entries: [{ key: ["k"], content: "c", extra: deep(depth - 3) }] });
    expect((await parseBook(book(64), { filename: "ok.json" })).entries).toHaveLength(1);
    const text = JSON.stringify(book(65));
    for (const input of [book(65), text, new TextEncoder().encode(text)]) {
      const err = await parseBook(input, { filename: "deep.json" }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "invalid_input", message: expect.stringContaining("64 levels") });
    }
  });

  test("card-json export upgrades a V1 base card and keeps its fields", async () => {
    const base = {
      name: "Old",
      description: "d",
      personality: "",
      scenario: "",
      first_mes: "hi",
      mes_example: "",
    };
    const out = await renderBook([card({ title: "A" })], "card-json", {
      base: { bytes: new TextEncoder().encode(JSON.stringify(base)), filename: "old.json" },
    });
    const v3 = json(out.bytes) as { spec: string; data: Raw & { character_book: { entries: Raw[] } } };
    expect(v3).toMatchObject({
      spec: "chara_card_v3",
      spec_version: "3.0",
      data: { name: "Old", first_mes: "hi" },
    });
    expect(v3.data.group_only_greetings).toEqual([]);
    expect(v3.data.character_book.entries).toHaveLength(1);
  });

  test("a base card's unknown fields survive (spec 13.5)", async () => {
    const base: Raw = { ...v3Card([]), future: { x: 1 } };
    (base.data as Raw).assets = [{ type: "icon", uri: "ccdefault:", name: "main", ext: "png" }];
    const out = await renderBook([card({})], "card-json", {
      base: { bytes: new TextEncoder().encode(JSON.stringify(base)), filename: "b.json" },
    });
    expect(json(out.bytes)).toMatchObject({ future: { x: 1 }, data: { assets: [{ type: "icon" }] } });
  });

  test.skipIf(!HAVE_REAL)("the real Seraphina PNG gives its 4 book entries from the ccv3 chunk", async () => {
    const book = await parseBook(real("st-card-Seraphina.png"), { filename: "st-card-Seraphina.png" });
    expect(book).toMatchObject({ format: "card-png", version: "V3", name: "Eldoria" });
    expect(book.entries.map((e) => e.title)).toEqual(["eldoria", "shadowfang", "glade", "power"]);
    const drafts = entriesToDrafts(book.entries, { kind: "entry", namespace: "card" });
    expect(drafts[0]!.frontmatter.card).toMatchObject({
      use_regex: true,
      constant: false,
      position: "before_char",
    });
    expect(throughFile(drafts[2]!)).toMatchObject({
      keywords: ["glade", "safe haven", "refuge"],
      priority: 100,
    });
  });

  test.skipIf(!HAVE_REAL)("the real decoded chara JSON reads as V2 with the same entries", async () => {
    const fromJson = await parseBook(real("st-card-Seraphina.chara.json"), { filename: "chara.json" });
    const fromPng = await parseBook(real("st-card-Seraphina.png"), { filename: "png" });
    expect(fromJson.version).toBe("V2");
    expect(fromJson.entries).toEqual(fromPng.entries);
  });

  test.skipIf(!HAVE_REAL)("Seraphina's book goes back into a card entry by entry", async () => {
    const original = json(real("st-card-Seraphina.chara.json")) as {
      data: { character_book: { entries: Raw[] } };
    };
    const book = await parseBook(real("st-card-Seraphina.png"), { filename: "png" });
    const cards = entriesToDrafts(book.entries, { kind: "entry", namespace: "card" }).map(throughFile);
    const out = json((await renderBook(cards, "lorebook_v3")).bytes) as { data: { entries: Raw[] } };
    expect(out.data.entries).toEqual(original.data.character_book.entries);
  });
});
