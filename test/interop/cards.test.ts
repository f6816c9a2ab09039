import { describe, expect, test } from "bun:test";
import type { Secondary } from "../../src/card/types.ts";
import { ST_ONLY } from "../../src/interop/_book-rules.ts";
import {
  detectVersion,
  type EntryRules,
  type ExportCard,
  entriesToDrafts,
  parseBook,
  plainMapped,
  renderBook,
} from "../../src/interop/index.ts";
import { HAVE_REAL, json, real, throughFile } from "./_support.ts";

type Raw = Record<string, unknown>;

const sec = (s: Partial<Secondary>): Secondary => ({ all: [], any: [], not: [], notAll: [], ...s });

function v3Card(entries: Raw[], extra: Raw = {}, book: Raw = {}): Raw {
  return {
    spec: "chara_card_v3",
    spec_version: "3.0",
    data: {
      name: "Test",
      extensions: {},
      character_book: { name: "Book", extensions: {}, entries, ...book },
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
  return { entry: book.entries[0]!, draft, card: throughFile(draft) };
}

function card(over: Partial<ExportCard>): ExportCard {
  return {
    ...plainMapped({ title: "t", keywords: ["k"] }),
    key: "k",
    kind: "entry",
    st: {},
    card: {},
    ...over,
  };
}

/** What SillyTavern writes under an entry's extensions (src/endpoints/characters.js). */
const ST_EXT = { display_index: 0, position: 0, selectiveLogic: 0, depth: 4, role: 0 };

async function exportEntry(c: ExportCard): Promise<Raw> {
  const out = json((await renderBook([c], "lorebook_v3")).bytes) as { data: { entries: Raw[] } };
  return out.data.entries[0]!;
}

describe("spec 13.1: which card version a JSON object is", () => {
  test.each([
    [{ spec: "chara_card_v3", data: {} }, "V3"],
    [{ spec: "chara_card_v2", data: {} }, "V2"],
    [{ name: "Old", description: "" }, "V1"],
    [{ name: "Old", first_mes: "Hello." }, "V1"],
    [{ name: "just a name", foo: 1 }, "Unknown"],
    [{ name: "a name and a number", description: 3 }, "Unknown"],
    [{ name: "some settings", theme: "dark", spec: 1 }, "Unknown"],
    [{ name: "Both", data: {} }, "Unknown"],
    [{ name: "A World Info book", entries: {} }, "Unknown"],
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
      "SillyTavern's extensions.selectiveLogic 1 → not_all (NOT ALL)",
      { secondary_keys: ["x"], selective: true, extensions: { selectiveLogic: 1 } },
      { secondary: sec({ notAll: ["x"] }) },
    ],
    [
      "SillyTavern's extensions.selectiveLogic 2 → not (NOT ANY)",
      { secondary_keys: ["x"], selective: true, extensions: { selectiveLogic: 2 } },
      { secondary: sec({ not: ["x"] }) },
    ],
    [
      "SillyTavern's extensions.selectiveLogic 3 → all (AND ALL)",
      { secondary_keys: ["x"], selective: true, extensions: { selectiveLogic: 3 } },
      { secondary: sec({ all: ["x"] }) },
    ],
    ["name → title", { name: "Harbor", comment: "note" }, { title: "Harbor" }],
    ["comment → title when there is no name", { comment: "Harbor" }, { title: "Harbor" }],
    ["priority → priority", { priority: 9 }, { priority: 9 }],
    ["no priority → none stated", {}, { priority: null }],
    ["enabled: false → enabled: false", { enabled: false }, { enabled: false }],
    ["content → body", { content: "The old harbor." }, { body: "The old harbor." }],
    [
      "V3 decorators → decorators, not part of the body",
      { content: "@@depth 4\n@@role system\nThe harbor." },
      { body: "The harbor.", decorators: ["@@depth 4", "@@role system"] },
    ],
  ])("%s", async (_name, entry, expected) => {
    expect((await importEntry(entry)).entry).toMatchObject(expected);
  });

  test.each<[string, Raw, EntryRules]>([
    ["insertion_order → order", { insertion_order: 250 }, { order: 250 }],
    ["constant → context: always", { constant: true }, { order: 1, context: "always" }],
    ["use_regex from a card not made by SillyTavern → regex", { use_regex: true }, { order: 1, regex: true }],
    [
      "use_regex from SillyTavern (which writes it on every entry) → nothing",
      { use_regex: true, extensions: ST_EXT },
      { order: 1, position: "before_char" },
    ],
    ["the spec's case_sensitive", { case_sensitive: true }, { order: 1, case_sensitive: true }],
    [
      "SillyTavern's extensions.case_sensitive wins",
      { case_sensitive: true, extensions: { case_sensitive: false } },
      { order: 1, case_sensitive: false },
    ],
    ["position after_char", { position: "after_char" }, { order: 1, position: "after_char" }],
    ["position before_char", { position: "before_char" }, { order: 1, position: "before_char" }],
    [
      "no position: after the character, as SillyTavern's card import places it",
      {},
      { order: 1, position: "after_char" },
    ],
    [
      "SillyTavern's position 4, depth and role",
      { position: "after_char", extensions: { position: 4, depth: 0, role: 2 } },
      { order: 1, position: "at_depth", depth: 0, role: "assistant" },
    ],
    ["scan_depth → scan_messages", { extensions: { scan_depth: 6 } }, { order: 1, scan_messages: 6 }],
    ["match_whole_words → whole_words", { extensions: { match_whole_words: false } }, { order: 1 }],
    ["probability", { extensions: { probability: 40, useProbability: true } }, { order: 1, probability: 40 }],
    [
      "useProbability false → always (not stated)",
      { extensions: { probability: 40, useProbability: false } },
      { order: 1 },
    ],
    [
      "groups",
      { extensions: { group: "a,b", group_override: true, group_weight: 7, use_group_scoring: true } },
      { order: 1, group: ["a", "b"], group_override: true, group_weight: 7, group_scoring: true },
    ],
    [
      "recursion",
      { extensions: { exclude_recursion: true, prevent_recursion: true, delay_until_recursion: true } },
      { order: 1, exclude_recursion: true, prevent_recursion: true, delay_until_recursion: true },
    ],
    [
      "timed effects",
      { extensions: { sticky: 1, cooldown: 2, delay: 3 } },
      { order: 1, sticky: 1, cooldown: 2, delay: 3 },
    ],
    ["ignore_budget", { extensions: { ignore_budget: true } }, { order: 1, ignore_budget: true }],
    [
      "SillyTavern's nulls state nothing",
      {
        extensions: {
          case_sensitive: null,
          match_whole_words: null,
          use_group_scoring: null,
          scan_depth: null,
          sticky: null,
        },
      },
      { order: 1 },
    ],
  ])("%s", async (_name, entry, expected) => {
    // Whole words is always stated: the spec's substring match (false), or for an entry SillyTavern
    // made (it writes display_index), its shipped setting (true); so is the place (after the character
    // unless a row says otherwise, as SillyTavern's card import does); the rows check the rest.
    const { whole_words: whole, ...rest } = (await importEntry(entry)).entry.rules;
    const ext = (entry.extensions ?? {}) as Raw;
    expect(whole).toBe(
      typeof ext.match_whole_words === "boolean" ? ext.match_whole_words : ST_ONLY.some((k) => k in ext),
    );
    expect(rest).toEqual({ position: "after_char", ...expected });
  });

  test.each<[string, Raw, boolean]>([
    ["an entry of the spec matches keys as substrings", {}, false],
    [
      "an entry with SillyTavern's own extensions but no display_index is SillyTavern's too",
      { selectiveLogic: 0, exclude_recursion: false, match_whole_words: null },
      true,
    ],
    [
      "an entry SillyTavern made, its match_whole_words null, gets its shipped setting",
      { display_index: 0, match_whole_words: null },
      true,
    ],
    ["SillyTavern's own false stays false", { display_index: 0, match_whole_words: false }, false],
  ])("%s", async (_name, extensions, whole) => {
    expect((await importEntry({ extensions })).entry.rules.whole_words).toBe(whole);
  });

  test("fields with no card setting (id, display_index, …) are kept under card:", async () => {
    const { draft } = await importEntry({ id: 3, extensions: { display_index: 2, automation_id: "a" } });
    expect(draft.frontmatter.card).toEqual({ id: 3, extensions: { display_index: 2, automation_id: "a" } });
  });

  test("a book without recursive scanning makes every card prevent_recursion", async () => {
    const wrap = (e: Raw[]) => v3Card(e, {}, { recursive_scanning: false, token_budget: 500 });
    const book = await parseBook(wrap([{ keys: ["a"], content: "A" }]), { filename: "b.json" });
    expect(book.entries[0]!.rules.prevent_recursion).toBe(true);
    expect(book.settings).toEqual({ name: "Book", recursiveScanning: false, tokenBudget: 500 });
    expect(book.character).toBe("Test");
  });

  test("a V2 card's content opens with decorators too, as SillyTavern reads every entry's", async () => {
    const v2 = (e: Raw[]) => ({
      spec: "chara_card_v2",
      spec_version: "2.0",
      data: { character_book: { entries: e } },
    });
    const { card, entry } = await importEntry({ content: "@@dont_activate\nBody" }, v2);
    expect(card.body).toBe("Body");
    expect(entry).toMatchObject({ decorators: ["@@dont_activate"] });
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
      "all → selectiveLogic 3 (AND ALL)",
      { secondary: sec({ all: ["x"] }) },
      { secondary_keys: ["x"], extensions: { selectiveLogic: 3 } },
    ],
    [
      "not → selectiveLogic 2 (NOT ANY)",
      { secondary: sec({ not: ["x"] }) },
      { secondary_keys: ["x"], extensions: { selectiveLogic: 2 } },
    ],
    [
      "not_all → selectiveLogic 1 (NOT ALL)",
      { secondary: sec({ notAll: ["x"] }) },
      { secondary_keys: ["x"], extensions: { selectiveLogic: 1 } },
    ],
    ["title → comment", { title: "Harbor" }, { comment: "Harbor" }],
    [
      "priority → priority, and insertion_order when no order is stated",
      { priority: 250 },
      { priority: 250, insertion_order: 250 },
    ],
    ["enabled → enabled", { enabled: false }, { enabled: false }],
    ["body → content", { body: "The old harbor." }, { content: "The old harbor." }],
    [
      "decorators go back in front of the content",
      { body: "B", decorators: ["@@depth 4"] },
      { content: "@@depth 4\nB" },
    ],
    [
      "card: fields come back",
      { card: { id: 3, extensions: { display_index: 5 } } },
      { id: 3, extensions: { display_index: 5 } },
    ],
    [
      "a new card gets use_regex: false (V3 requires it)",
      {},
      { use_regex: false, constant: false, position: "before_char" },
    ],
  ])("%s", async (_name, over, expected) => {
    expect(await exportEntry(card(over as Partial<ExportCard>))).toMatchObject(expected);
  });

  test.each<[string, EntryRules, Raw]>([
    ["context: always → constant", { context: "always" }, { constant: true }],
    ["regex → use_regex", { regex: true }, { use_regex: true }],
    ["order → insertion_order", { order: 4 }, { insertion_order: 4 }],
    [
      "case_sensitive → both fields",
      { case_sensitive: true },
      { case_sensitive: true, extensions: { case_sensitive: true } },
    ],
    [
      "position after_char",
      { position: "after_char" },
      { position: "after_char", extensions: { position: 1 } },
    ],
    [
      "at_depth → SillyTavern's position 4, depth and role",
      { position: "at_depth", depth: 2, role: "user" },
      { position: "after_char", extensions: { position: 4, depth: 2, role: 1 } },
    ],
    [
      "every other setting under extensions, as SillyTavern reads it",
      {
        scan_messages: 3,
        whole_words: true,
        probability: 10,
        group: ["g"],
        group_override: true,
        group_weight: 2,
        group_scoring: true,
        exclude_recursion: true,
        prevent_recursion: true,
        delay_until_recursion: true,
        sticky: 1,
        cooldown: 2,
        delay: 3,
        ignore_budget: true,
      },
      {
        extensions: {
          scan_depth: 3,
          match_whole_words: true,
          probability: 10,
          useProbability: true,
          group: "g",
          group_override: true,
          group_weight: 2,
          use_group_scoring: true,
          exclude_recursion: true,
          prevent_recursion: true,
          delay_until_recursion: true,
          sticky: 1,
          cooldown: 2,
          delay: 3,
          ignore_budget: true,
        },
      },
    ],
  ])("%s", async (_name, rules, expected) => {
    expect(await exportEntry(card({ rules }))).toMatchObject(expected);
  });

  test("decorators an old import kept under card: go back in front of the content", async () => {
    const draft = {
      kind: "entry",
      key: "k",
      frontmatter: { keywords: ["k"], card: { decorators: ["@@depth 4"] } },
      body: "B\n",
    };
    const back = await exportEntry(throughFile(draft));
    expect(back.content).toBe("@@depth 4\nB");
    expect(back).not.toHaveProperty("decorators");
  });

  test("an entry comes back field for field, decorators and name included", async () => {
    const entry = {
      keys: ["a", "b"],
      content: "@@depth 4\nBody\nmore",
      extensions: { depth: 4 },
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
    const back = await exportEntry(c);
    // Every field as it was; SillyTavern's extension fields are added with their defaults.
    expect(back).toEqual({
      ...back,
      ...entry,
      extensions: { ...(back.extensions as Raw), ...entry.extensions },
    });
    // Not made by SillyTavern: the spec's substring match is stated, as false.
    expect(back.extensions).toMatchObject({ scan_depth: null, match_whole_words: false, probability: 100 });
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

  describe("the card's dates (spec 7.5.7, 7.5.8)", () => {
    const T0 = Date.parse("2026-03-01T00:00:00Z");
    const T1 = Date.parse("2026-05-01T12:00:00Z");
    const encode = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
    type Dated = { data: { creation_date?: number; modification_date?: number } };

    test("a card made without a base is created and modified now, in Unix seconds", async () => {
      const out = json(
        (await renderBook([card({ title: "A" })], "card-json", { now: () => T0 })).bytes,
      ) as Dated;
      expect(out.data).toMatchObject({ creation_date: T0 / 1000, modification_date: T0 / 1000 });
    });

    test("a changed book moves modification_date to now and keeps creation_date", async () => {
      const base = v3Card([{ keys: ["old"], content: "old", enabled: true, insertion_order: 1 }], {
        creation_date: 1_700_000_000,
        modification_date: 1_700_000_500,
      });
      const out = await renderBook([card({ title: "A" })], "card-json", {
        base: { bytes: encode(base), filename: "b.json" },
        now: () => T1,
      });
      expect((json(out.bytes) as Dated).data).toMatchObject({
        creation_date: 1_700_000_000,
        modification_date: Math.floor(T1 / 1000),
      });
    });

    test("a book exported as it was leaves both dates alone", async () => {
      const first = json((await renderBook([card({ title: "A" })], "card-json", { now: () => T0 })).bytes);
      const again = await renderBook([card({ title: "A" })], "card-json", {
        base: { bytes: encode(first), filename: "first.json" },
        now: () => T1,
      });
      expect((json(again.bytes) as Dated).data).toMatchObject({
        creation_date: T0 / 1000,
        modification_date: T0 / 1000,
      });
    });
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
    // SillyTavern's use_regex: true on plain keys is kept aside, not read as regex.
    expect(drafts[0]!.frontmatter.card).toMatchObject({ use_regex: true, id: 0 });
    expect(drafts[0]!.frontmatter.regex).toBeUndefined();
    expect(throughFile(drafts[2]!)).toMatchObject({
      keywords: ["glade", "safe haven", "refuge"],
      rules: { order: 100, position: "before_char", group_scoring: false },
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
