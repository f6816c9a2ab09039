import { describe, expect, test } from "bun:test";
import type { Secondary } from "../../src/card/types.ts";
import {
  type EntryRules,
  type ExportCard,
  entriesToDrafts,
  parseBook,
  plainMapped,
  renderBook,
} from "../../src/interop/index.ts";
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
  return {
    ...plainMapped({ title: "t", keywords: ["k"] }),
    key: "k",
    kind: "entry",
    st: {},
    card: {},
    ...over,
  };
}

async function exportEntry(c: ExportCard): Promise<Raw> {
  const out = json((await renderBook([c], "st")).bytes) as { entries: Record<string, Raw> };
  return Object.values(out.entries)[0]!;
}

const sec = (s: Partial<Secondary>): Secondary => ({ all: [], any: [], not: [], notAll: [], ...s });

describe("SillyTavern World Info → card (docs/INTEROP.md)", () => {
  test.each([
    ["key → keywords", { key: ["Alice", "Al"] }, { keywords: ["Alice", "Al"] }],
    [
      "keysecondary + 0 AND ANY → any",
      { keysecondary: ["x"], selectiveLogic: 0 },
      { secondary: sec({ any: ["x"] }) },
    ],
    [
      "keysecondary + 1 NOT ALL → not_all",
      { keysecondary: ["x"], selectiveLogic: 1 },
      { secondary: sec({ notAll: ["x"] }) },
    ],
    [
      "keysecondary + 2 NOT ANY → not",
      { keysecondary: ["x"], selectiveLogic: 2 },
      { secondary: sec({ not: ["x"] }) },
    ],
    [
      "keysecondary + 3 AND ALL → all",
      { keysecondary: ["x"], selectiveLogic: 3 },
      { secondary: sec({ all: ["x"] }) },
    ],
    [
      "keysecondary without selectiveLogic → any",
      { keysecondary: ["x"] },
      { secondary: sec({ any: ["x"] }) },
    ],
    [
      "selective: false → no secondary words (SillyTavern ignores them then)",
      { keysecondary: ["x"], selective: false },
      { secondary: sec({}) },
    ],
    ["comment → title", { comment: "The harbor" }, { title: "The harbor" }],
    ["no comment → the first key as title", { comment: "", key: ["harbor", "port"] }, { title: "harbor" }],
    ["content → body", { content: "Line one\nLine two" }, { body: "Line one\nLine two" }],
    [
      "leading @@ lines of the content → decorators",
      { content: "@@activate\n@@depth 2\nBody" },
      { body: "Body", decorators: ["@@activate", "@@depth 2"] },
    ],
    ["disable: true → enabled: false", { disable: true }, { enabled: false }],
    ["disable: false → enabled: true", { disable: false }, { enabled: true }],
    ["no scan_depth of old: scanDepth is no longer halved", { scanDepth: 4 }, { scanDepth: null }],
  ])("%s", async (_name, entry, expected) => {
    const { entry: mapped } = await importEntry(entry);
    expect(mapped).toMatchObject(expected);
  });

  test.each<[string, Raw, EntryRules]>([
    ["constant: true → context: always", { constant: true }, { context: "always" }],
    ["order → order", { order: 42 }, { order: 42 }],
    [
      "scanDepth → scan_messages, counted in messages as SillyTavern counts",
      { scanDepth: 5 },
      { scan_messages: 5 },
    ],
    ["position 0–7 → POSITIONS", { position: 1 }, { position: "after_char" }],
    [
      "position 4 with depth and role → at_depth",
      { position: 4, depth: 2, role: 1 },
      { position: "at_depth", depth: 2, role: "user" },
    ],
    ["position 7 → outlet", { position: 7 }, { position: "outlet" }],
    ["caseSensitive: true → case_sensitive: true", { caseSensitive: true }, { case_sensitive: true }],
    ["caseSensitive: false stays stated", { caseSensitive: false }, { case_sensitive: false }],
    ["matchWholeWords: false → whole_words: false", { matchWholeWords: false }, { whole_words: false }],
    ["useGroupScoring: true → group_scoring", { useGroupScoring: true }, { group_scoring: true }],
    ["probability with useProbability", { probability: 35, useProbability: true }, { probability: 35 }],
    ["useProbability: false → always (100, not stated)", { probability: 35, useProbability: false }, {}],
    ["group → a list of groups", { group: "a, b" }, { group: ["a", "b"] }],
    [
      "groupOverride and groupWeight",
      { groupOverride: true, groupWeight: 30 },
      { group_override: true, group_weight: 30 },
    ],
    [
      "recursion flags",
      { excludeRecursion: true, preventRecursion: true, delayUntilRecursion: true },
      { exclude_recursion: true, prevent_recursion: true, delay_until_recursion: true },
    ],
    ["a recursion level counts as delayed", { delayUntilRecursion: 2 }, { delay_until_recursion: true }],
    ["sticky, cooldown, delay", { sticky: 2, cooldown: 3, delay: 4 }, { sticky: 2, cooldown: 3, delay: 4 }],
    ["ignoreBudget → ignore_budget", { ignoreBudget: true }, { ignore_budget: true }],
    [
      "matchWholeWords: null → whole_words: true, SillyTavern's shipped setting for every entry",
      { matchWholeWords: null },
      { whole_words: true },
    ],
    [
      "null settings (the global setting) state nothing",
      {
        caseSensitive: null,
        useGroupScoring: null,
        scanDepth: null,
        sticky: null,
        role: null,
      },
      {},
    ],
    [
      "defaults state nothing",
      { constant: false, groupWeight: 100, probability: 100, sticky: 0, depth: 4 },
      {},
    ],
  ])("%s", async (_name, entry, expected) => {
    const { entry: mapped } = await importEntry(entry);
    // Every entry states whole words (SillyTavern's shipped default for null): its own row checks it.
    const { position: _p, order: _o, whole_words: whole, ...rest } = mapped.rules;
    if ("matchWholeWords" in entry) Object.assign(rest, { whole_words: whole });
    const got = { ...rest, ...("position" in entry ? { position: mapped.rules.position } : {}) };
    if ("order" in entry) Object.assign(got, { order: mapped.rules.order });
    expect(got).toEqual(expected);
  });

  test("fields with no card setting are kept verbatim under st:", async () => {
    const extra = { uid: 0, displayIndex: 3, vectorized: false, automationId: "x", triggers: ["normal"] };
    const { draft } = await importEntry(extra);
    expect(draft.frontmatter.st).toEqual(extra);
  });

  test("a card file states the settings under their frontmatter names", async () => {
    const { draft } = await importEntry({ constant: true, position: 4, depth: 1, role: 0, order: 5 });
    expect(draft.frontmatter).toMatchObject({
      context: "always",
      order: 5,
      position: "at_depth",
      depth: 1,
      role: "system",
    });
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

  test("a World Info book with a top-level name is a book, not a V1 character card", async () => {
    const book = await parseBook(
      { name: "Harbor lore", entries: { "0": { key: ["a"], content: "A" } } },
      { filename: "named.json" },
    );
    expect(book).toMatchObject({ format: "st", name: "Harbor lore" });
    expect(book.entries).toHaveLength(1);
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
      "all → keysecondary + 3 (AND ALL)",
      { secondary: sec({ all: ["x"] }) },
      { keysecondary: ["x"], selectiveLogic: 3 },
    ],
    [
      "not → keysecondary + 2",
      { secondary: sec({ not: ["x"] }) },
      { keysecondary: ["x"], selectiveLogic: 2 },
    ],
    [
      "not_all → keysecondary + 1 (NOT ALL)",
      { secondary: sec({ notAll: ["x"] }) },
      { keysecondary: ["x"], selectiveLogic: 1 },
    ],
    ["no secondary → empty keysecondary", {}, { keysecondary: [], selectiveLogic: 0, selective: true }],
    ["title → comment", { title: "The harbor" }, { comment: "The harbor" }],
    ["body → content", { body: "Line one\nLine two" }, { content: "Line one\nLine two" }],
    [
      "decorators go back in front of the content",
      { body: "B", decorators: ["@@activate"] },
      { content: "@@activate\nB" },
    ],
    ["priority → order when the card states no order", { priority: 42 }, { order: 42 }],
    ["the old scan_depth (turns) is doubled", { scanDepth: 3 }, { scanDepth: 6 }],
    ["no scan window → null (the global setting)", {}, { scanDepth: null }],
    ["enabled: false → disable: true", { enabled: false }, { disable: true }],
    ["enabled: true → disable: false", { enabled: true }, { disable: false }],
    [
      "unstated settings → SillyTavern's nulls",
      {},
      { caseSensitive: null, matchWholeWords: null, useGroupScoring: null, role: null },
    ],
    [
      "st: fields come back verbatim",
      { st: { vectorized: true, automationId: "a" } },
      { vectorized: true, automationId: "a" },
    ],
  ])("%s", async (_name, over, expected) => {
    expect(await exportEntry(card(over as Partial<ExportCard>))).toMatchObject(expected);
  });

  test.each<[string, EntryRules, Raw]>([
    ["context: always → constant", { context: "always" }, { constant: true }],
    ["order → order", { order: 7 }, { order: 7 }],
    ["scan_messages → scanDepth", { scan_messages: 3 }, { scanDepth: 3 }],
    ["position → its number", { position: "em_bottom" }, { position: 6 }],
    [
      "at_depth with depth and role",
      { position: "at_depth", depth: 0, role: "assistant" },
      { position: 4, depth: 0, role: 2 },
    ],
    [
      "case and whole words",
      { case_sensitive: true, whole_words: false },
      { caseSensitive: true, matchWholeWords: false },
    ],
    ["probability", { probability: 25 }, { probability: 25, useProbability: true }],
    [
      "groups",
      { group: ["a", "b"], group_override: true, group_weight: 5, group_scoring: true },
      { group: "a, b", groupOverride: true, groupWeight: 5, useGroupScoring: true },
    ],
    [
      "recursion",
      { exclude_recursion: true, prevent_recursion: true, delay_until_recursion: true },
      { excludeRecursion: true, preventRecursion: true, delayUntilRecursion: true },
    ],
    ["timed effects", { sticky: 1, cooldown: 2, delay: 3 }, { sticky: 1, cooldown: 2, delay: 3 }],
    ["ignore_budget", { ignore_budget: true }, { ignoreBudget: true }],
  ])("%s", async (_name, rules, expected) => {
    expect(await exportEntry(card({ rules }))).toMatchObject(expected);
  });

  test("a card with depth alone goes to SillyTavern at that depth, as the card parser reads it", async () => {
    const draft = { kind: "entry", key: "A", frontmatter: { keywords: ["a"], depth: 3 }, body: "A." };
    expect(await exportEntry(throughFile(draft))).toMatchObject({ position: 4, depth: 3 });
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
    ["context: manual", true, { context: "manual" }],
    ["context: never", true, { context: "never" }],
    ["enabled: false", true, { enabled: false }],
    ["context: always", false, { context: "always" }],
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
    ["NOT ALL (1) comes back as 1", { keysecondary: ["x"], selectiveLogic: 1 }],
    ["AND ALL (3) comes back as 3", { keysecondary: ["x"], selectiveLogic: 3 }],
    ["selective: false with secondary words comes back so", { keysecondary: ["x"], selective: false }],
    ["an odd scanDepth comes back odd", { scanDepth: 5 }],
    ["a null scanDepth beside depth comes back null", { scanDepth: null, depth: 4 }],
    [
      "null settings come back null",
      { caseSensitive: null, matchWholeWords: null, useGroupScoring: null, sticky: null },
    ],
    ["useProbability false comes back false", { probability: 35, useProbability: false }],
    ["a group written without a space comes back so", { group: "a,b" }],
    ["a recursion level comes back as the level", { delayUntilRecursion: 2 }],
    ["role 0 away from a depth comes back", { position: 1, role: 0, depth: 1 }],
    ["an empty comment comes back empty", { comment: "" }],
    ["CRLF content comes back with CRLF", { content: "a\r\nb" }],
    ["decorators come back in front of the content", { content: "@@activate\nBody" }],
    ["content ending in a newline keeps it", { content: "a\n" }],
    ["repeated and padded keys come back as written", { key: [" a", "a", "b"] }],
  ])("%s", async (_name, entry) => {
    const { card } = await importEntry(entry);
    const back = await exportEntry(card);
    for (const [field, value] of Object.entries(entry)) expect([field, back[field]]).toEqual([field, value]);
  });

  test("an edited card exports its new value, not the kept original", async () => {
    const { card } = await importEntry({
      keysecondary: ["x"],
      selective: false,
      caseSensitive: null,
      scanDepth: 5,
    });
    const back = await exportEntry({
      ...card,
      secondary: sec({ all: ["y"] }),
      rules: { ...card.rules, case_sensitive: true, scan_messages: 2 },
    });
    expect(back).toMatchObject({
      keysecondary: ["y"],
      selectiveLogic: 3,
      selective: true,
      caseSensitive: true,
      scanDepth: 2,
    });
  });

  test.each([
    ["case-blind", {}, ["/harbor/i", "/a\\/b/i", "/x+/g"]],
    ["case-sensitive", { case_sensitive: true }, ["/harbor/", "/a\\/b/", "/x+/g"]],
  ])(
    "a %s regex card goes out with /pattern/ keys SillyTavern runs, and comes back as it was",
    async (_n, more, keys) => {
      const c = card({ keywords: ["harbor", "a/b", "/x+/g"], rules: { regex: true, ...more } });
      const out = await exportEntry(c);
      expect(out).toMatchObject({ key: keys, useRegex: true });
      const book = await parseBook({ entries: { "0": out } }, { filename: "r.json" });
      expect(book.entries[0]).toMatchObject({ keywords: c.keywords, rules: { regex: true } });
    },
  );

  test("a card edited to state nothing exports SillyTavern's null, not the kept value", async () => {
    const { card } = await importEntry({ caseSensitive: false, position: 4, depth: 2 });
    const back = await exportEntry({ ...card, rules: {} });
    expect(back).toMatchObject({ caseSensitive: null, position: 0, depth: 4 });
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
      enabled: true,
      rules: { order: 100, position: "before_char" },
    });
    expect(c.body.startsWith('{{user}}: "What are Shadowfangs?"')).toBe(true);
  });

  test.skipIf(!HAVE_REAL)(
    "the real Weather Director stays always-on, placed after the character",
    async () => {
      const book = await parseBook(real("hxh_Weather_Director.json"), {
        filename: "hxh_Weather_Director.json",
      });
      const c = throughFile(entriesToDrafts(book.entries, { kind: "entry", namespace: "st" })[0]!);
      expect(c.keywords).toEqual([]);
      expect(c.rules).toEqual({
        context: "always",
        order: 1000,
        position: "after_char",
        exclude_recursion: true,
        prevent_recursion: true,
        whole_words: true,
      });
      const back = await exportEntry(c);
      const original = (json(real("hxh_Weather_Director.json")) as { entries: Record<string, Raw> }).entries[
        "0"
      ]!;
      // Every field as it was; the export only adds the defaults the file left out (ignoreBudget).
      expect(back).toEqual({ ...back, ...original });
    },
  );
});
