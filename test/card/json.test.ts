// Cards as JSON: one module makes every surface's shape, the differences being options.
import { describe, expect, test } from "bun:test";
import {
  brokenSummary,
  byKindThenTitle,
  cardDocument,
  cardForm,
  cardMeta,
  cardSummary,
  defaultKinds,
  kindByName,
  parseCard,
  rulesJson,
} from "../../src/card/index.ts";

const kinds = defaultKinds();
const card = parseCard(
  "---\ntitle: Alice\nkeywords: [alice]\nenabled: false\nst: {depth: 4}\n---\nThe sister.\n\n## who\nLives in Lyon.\n\n## correspondence\nA letter.\n",
  { kind: "people", key: "Alice", path: "people/Alice.md", kinds, mtime: "123", size: 9 },
);
const people = kindByName(kinds, "people");

describe("a card in a list", () => {
  test("for `list --json`: who it is, what it fires on, whether it is on", () => {
    expect(cardSummary(cardMeta(card))).toEqual({
      key: "Alice",
      kind: "people",
      path: "people/Alice.md",
      title: "Alice",
      keywords: ["alice"],
      aliases: [],
      enabled: false,
      inject: true,
    });
  });

  test("for MCP: no path, and only what differs from the defaults", () => {
    expect(cardSummary(cardMeta(card), { path: false, compact: true })).toEqual({
      key: "Alice",
      kind: "people",
      title: "Alice",
      keywords: ["alice"],
      enabled: false,
    });
  });

  test("for the editor: the preview line and the mtime too", () => {
    expect(cardSummary(cardMeta(card), { preview: true })).toMatchObject({
      preview: "The sister.",
      mtime: "1970-01-01T00:00:00.000000123Z",
    });
  });

  test("lists read by kind, then title", () => {
    const a = { ...cardMeta(card), kind: "thing", title: "a" };
    const b = { ...cardMeta(card), kind: "people", title: "b" };
    const c = { ...cardMeta(card), kind: "people", title: "a" };
    expect([a, b, c].sort(byKindThenTitle)).toEqual([c, b, a]);
  });

  test("a broken file is its path and error, with its names for the editor", () => {
    const b = { path: "people/Bad.md", kind: "people", key: "Bad", error: "bad YAML" };
    expect(brokenSummary(b)).toEqual({ path: "people/Bad.md", error: "bad YAML" });
    expect(brokenSummary(b, { names: true })).toEqual(b);
  });
});

const lorebook = parseCard(
  "---\ntitle: Bran\nkeywords: ['/br[ae]n/i']\ncontext: always\nprobability: 100\nsecondary: {not_all: [x, y]}\n" +
    "decorators: ['@@depth 2', '@@additional_keys tower,wolf', '@@keep_activate_after_match']\n---\nThe boy.\n",
  { kind: "people", key: "Bran", path: "people/Bran.md", kinds },
);

describe("a card's lorebook rules", () => {
  test("are shown in the frontmatter's words, only where they differ from the defaults", () => {
    expect(rulesJson(lorebook.rules)).toEqual({
      context: "always",
      position: "at_depth",
      depth: 2,
      additional_keys: [["tower", "wolf"]],
      keep_activate_after_match: true,
    });
  });

  test("a plain card shows none", () => {
    expect(rulesJson(card.rules)).toEqual({});
  });

  test("`read --json` and the editor's form carry them, and secondary's not_all", () => {
    expect(cardDocument(lorebook).rules).toEqual(rulesJson(lorebook.rules));
    const form = cardForm(lorebook, people);
    expect(form.rules).toEqual(rulesJson(lorebook.rules));
    expect(form.secondary).toEqual({ all: [], any: [], not: [], not_all: ["x", "y"] });
    // The fields themselves are `extra` as written (the form has no control for them), so a save
    // writes back what the file said.
    expect(form.extra).toEqual({
      context: "always",
      probability: 100,
      decorators: ["@@depth 2", "@@additional_keys tower,wolf", "@@keep_activate_after_match"],
    });
  });
});

describe("a whole card", () => {
  test("for `read --json`: frontmatter and sections as written, private ones marked, with the file's warnings and mtime", () => {
    const doc = cardDocument(card);
    expect(doc.sections).toEqual([
      { heading: "who", text: "Lives in Lyon.\n\n", private: false },
      { heading: "correspondence", text: "A letter.\n", private: true },
    ]);
    expect(doc).toMatchObject({
      frontmatter: { st: { depth: 4 } },
      warnings: [],
      mtime: "1970-01-01T00:00:00.000000123Z",
    });
  });

  test("for an agent: what update_recent rewrites and what private means, without file details", () => {
    const doc = cardDocument(card, { file: false, agent: people });
    expect(doc).toMatchObject({
      recent_section: "recent",
      private_note: expect.stringContaining("never injected"),
    });
    expect(doc).not.toHaveProperty("mtime");
  });

  test("for the editor's form: the kind's sections first, unknown frontmatter keys as extra", () => {
    const form = cardForm(card, people);
    expect(form.fields).toEqual({
      who: "Lives in Lyon.",
      stance: "",
      recent: "",
      impression: "",
      correspondence: "A letter.",
    });
    expect(form.extra).toEqual({ st: { depth: 4 } });
    expect(form.preamble).toBe("The sister.");
  });
});
