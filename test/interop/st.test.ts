import { describe, expect, test } from "bun:test";
import type { Secondary } from "../../src/card/types.ts";
import { type ExportCard, entriesToDrafts, parseBook, renderBook } from "../../src/interop/index.ts";
import { HAVE_REAL, json, real, throughFile } from "./_support.ts";

type Raw = Record<string, unknown>;

async function importEntry(entry: Raw) {
  const book = await parseBook(
    { entries: { "0": { uid: 0, key: ["k"], content: "c", ...entry } } },
    { filename: "t.json" },
  );
  const draft = entriesToDrafts(book.entries, { kind: "entry", namespace: book.namespace })[0]!;
  return { entry: book.entries[0]!, draft, card: throughFile(draft) };
}

function card(over: Partial<ExportCard>): ExportCard {
  const secondary: Secondary = { all: [], any: [], not: [] };
  return {
    key: "k",
    kind: "entry",
    title: "t",
    keywords: ["k"],
    secondary,
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
  const out = json((await renderBook([c], "st")).bytes) as { entries: Record<string, Raw> };
  return Object.values(out.entries)[0]!;
}

const sec = (s: Partial<Secondary>): Secondary => ({ all: [], any: [], not: [], ...s });

describe("SillyTavern World Info → card (the seed's mapping table)", () => {
  test.each([
    ["key → keywords", { key: ["Alice", "Al"] }, { keywords: ["Alice", "Al"] }],
    [
      "keysecondary + 0 AND ANY → any",
      { keysecondary: ["x"], selectiveLogic: 0 },
      { secondary: sec({ any: ["x"] }) },
    ],
    [
      "keysecondary + 1 AND ALL → all",
      { keysecondary: ["x"], selectiveLogic: 1 },
      { secondary: sec({ all: ["x"] }) },
    ],
    [
      "keysecondary + 2 NOT ANY → not",
      { keysecondary: ["x"], selectiveLogic: 2 },
      { secondary: sec({ not: ["x"] }) },
    ],
    [
      "keysecondary + 3 NOT ALL → not",
      { keysecondary: ["x"], selectiveLogic: 3 },
      { secondary: sec({ not: ["x"] }) },
    ],
    [
      "keysecondary without selectiveLogic → any",
      { keysecondary: ["x"] },
      { secondary: sec({ any: ["x"] }) },
    ],
    ["comment → title", { comment: "The harbor" }, { title: "The harbor" }],
    ["no comment → the first key as title", { comment: "", key: ["harbor", "port"] }, { title: "harbor" }],
    ["content → body", { content: "Line one\nLine two" }, { body: "Line one\nLine two" }],
    ["order → priority", { order: 42 }, { priority: 42 }],
    ["scanDepth is halved", { scanDepth: 4 }, { scanDepth: 2 }],
    ["an odd scanDepth rounds up", { scanDepth: 5 }, { scanDepth: 3 }],
    ["no scanDepth falls back to depth", { scanDepth: null, depth: 3 }, { scanDepth: 2 }],
    ["neither scanDepth nor depth → no scan_depth", {}, { scanDepth: null }],
    ["disable: true → enabled: false", { disable: true }, { enabled: false }],
    ["disable: false → enabled: true", { disable: false }, { enabled: true }],
  ])("%s", async (_name, entry, expected) => {
    const { card } = await importEntry(entry);
    expect(card).toMatchObject(expected);
  });

  test("every other field is kept verbatim under st:", async () => {
    const extra = {
      constant: true,
      position: 4,
      probability: 35,
      uid: 0,
      group: "g",
      role: null,
      triggers: ["normal"],
    };
    const { draft } = await importEntry(extra);
    expect(draft.frontmatter.st).toEqual(extra);
  });

  test("the list form of entries is read too", async () => {
    const book = await parseBook(
      {
        entries: [
          { key: ["a"], content: "A" },
          { key: ["b"], content: "B" },
        ],
      },
      { filename: "l.json" },
    );
    expect(book.entries.map((e) => e.title)).toEqual(["a", "b"]);
  });

  test("bytes, JSON text and a parsed value give the same book", async () => {
    const value = { entries: { "0": { key: ["a"], content: "A" } } };
    const text = JSON.stringify(value);
    const books = await Promise.all(
      [value, text, new TextEncoder().encode(text)].map((input) => parseBook(input, { filename: "b.json" })),
    );
    expect(books[1]).toEqual(books[0]!);
    expect(books[2]).toEqual(books[0]!);
  });

  test("an entry that is not an object is skipped with a reason", async () => {
    const book = await parseBook({ entries: { "0": { key: ["a"] }, "1": "oops" } }, { filename: "s.json" });
    expect(book.entries).toHaveLength(1);
    expect(book.skipped).toEqual([{ title: "entry 1", reason: "not a JSON object" }]);
  });
});

describe("card → SillyTavern World Info", () => {
  test.each([
    ["keywords → key", { keywords: ["Alice", "Al"] }, { key: ["Alice", "Al"] }],
    [
      "any → keysecondary + 0",
      { secondary: sec({ any: ["x"] }) },
      { keysecondary: ["x"], selectiveLogic: 0 },
    ],
    [
      "all → keysecondary + 1",
      { secondary: sec({ all: ["x"] }) },
      { keysecondary: ["x"], selectiveLogic: 1 },
    ],
    [
      "not → keysecondary + 2",
      { secondary: sec({ not: ["x"] }) },
      { keysecondary: ["x"], selectiveLogic: 2 },
    ],
    ["no secondary → empty keysecondary", {}, { keysecondary: [], selectiveLogic: 0 }],
    ["title → comment", { title: "The harbor" }, { comment: "The harbor" }],
    ["body → content", { body: "Line one\nLine two" }, { content: "Line one\nLine two" }],
    ["priority → order", { priority: 42 }, { order: 42 }],
    ["scan_depth is doubled", { scanDepth: 3 }, { scanDepth: 6 }],
    ["no scan_depth → null", { scanDepth: null }, { scanDepth: null }],
    ["enabled: false → disable: true", { enabled: false }, { disable: true }],
    ["enabled: true → disable: false", { enabled: true }, { disable: false }],
    [
      "st: fields come back verbatim",
      { st: { probability: 35, position: 4 } },
      { probability: 35, position: 4 },
    ],
  ])("%s", async (_name, over, expected) => {
    expect(await exportEntry(card(over as Partial<ExportCard>))).toMatchObject(expected);
  });

  test("a card's aliases are exported as keys too (both are match terms here)", async () => {
    const draft = {
      kind: "entry",
      key: "Alice",
      frontmatter: { keywords: ["Alice"], aliases: ["Al"] },
      body: "",
    };
    expect(await exportEntry(throughFile(draft))).toMatchObject({ key: ["Alice", "Al"], comment: "Alice" });
  });

  test.each([
    ["inject: false (kept out of automatic recall)", true, { inject: false }],
    ["enabled: false", true, { enabled: false }],
    ["neither", false, {}],
  ])("a card with %s exports with disable %p", async (_name, disable, fields) => {
    const draft = {
      kind: "entry",
      key: "Alice",
      frontmatter: { keywords: ["Alice"], ...fields },
      body: "A.",
    };
    expect(await exportEntry(throughFile(draft))).toMatchObject({ disable });
  });

  test("a card that never came from SillyTavern gets the fields SillyTavern expects", async () => {
    const entry = await exportEntry(card({}));
    for (const field of [
      "uid",
      "constant",
      "selective",
      "position",
      "probability",
      "depth",
      "displayIndex",
    ]) {
      expect(entry).toHaveProperty(field);
    }
  });

  test("uids are kept, and repeated or missing ones get free numbers", async () => {
    const out = await renderBook(
      [card({ st: { uid: 7 } }), card({ st: { uid: 7 } }), card({}), card({ st: { uid: 0 } })],
      "st",
    );
    const entries = (json(out.bytes) as { entries: Record<string, Raw> }).entries;
    expect(Object.keys(entries).sort()).toEqual(["0", "1", "2", "7"]);
    for (const [uid, e] of Object.entries(entries)) expect(e.uid).toBe(Number(uid));
  });
});

describe("round trips", () => {
  test.each([
    ["NOT ALL (3) comes back as 3 while the card is unchanged", { keysecondary: ["x"], selectiveLogic: 3 }],
    ["an odd scanDepth comes back odd", { scanDepth: 5 }],
    ["a null scanDepth beside depth comes back null", { scanDepth: null, depth: 4 }],
    ["an empty comment comes back empty", { comment: "" }],
    ["CRLF content comes back with CRLF", { content: "a\r\nb" }],
    ["content ending in a newline keeps it", { content: "a\n" }],
    ["repeated and padded keys come back as written", { key: [" a", "a", "b"] }],
  ])("%s", async (_name, entry) => {
    const { card } = await importEntry(entry);
    const back = await exportEntry(card);
    for (const [field, value] of Object.entries(entry)) expect(back[field]).toEqual(value);
  });

  test("an edited card exports its new value, not the kept original", async () => {
    const { card } = await importEntry({ keysecondary: ["x"], selectiveLogic: 3, scanDepth: 5 });
    const back = await exportEntry({ ...card, secondary: sec({ all: ["y"] }), scanDepth: 1 });
    expect(back).toMatchObject({ keysecondary: ["y"], selectiveLogic: 1, scanDepth: 2 });
  });

  test.skipIf(!HAVE_REAL)("the real Eldoria book gives every field of every entry back", async () => {
    const original = json(real("st-worldinfo-Eldoria.json")) as { entries: Record<string, Raw> };
    const book = await parseBook(real("st-worldinfo-Eldoria.json"), {
      filename: "st-worldinfo-Eldoria.json",
    });
    expect(book.format).toBe("st");
    const drafts = entriesToDrafts(book.entries, { kind: "entry", namespace: "st" });
    expect(drafts.map((d) => d.key)).toEqual(["eldoria", "shadowfang", "glade", "power"]);
    const out = json((await renderBook(drafts.map(throughFile), "st")).bytes) as {
      entries: Record<string, Raw>;
    };
    expect(Object.keys(out.entries)).toEqual(Object.keys(original.entries));
    for (const [uid, entry] of Object.entries(original.entries)) {
      for (const [field, value] of Object.entries(entry))
        expect([uid, field, out.entries[uid]![field]]).toEqual([uid, field, value]);
    }
  });

  test.skipIf(!HAVE_REAL)("Eldoria's entries become cards that fire on their keys", async () => {
    const book = await parseBook(real("st-worldinfo-Eldoria.json"), {
      filename: "st-worldinfo-Eldoria.json",
    });
    const c = throughFile(entriesToDrafts(book.entries, { kind: "entry", namespace: "st" })[1]!);
    expect(c).toMatchObject({
      title: "shadowfang",
      keywords: ["shadowfang", "beast", "monster", "monsters", "beasts"],
    });
    expect(c).toMatchObject({ priority: 100, enabled: true, scanDepth: 2 });
    expect(c.body.startsWith('{{user}}: "What are Shadowfangs?"')).toBe(true);
  });
});
