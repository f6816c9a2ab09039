import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { DEFAULT_RULES } from "../../src/card/rules.ts";
import type { CardMeta } from "../../src/card/types.ts";
import { checkCards } from "../../src/check/index.ts";
import { loadIndex, openVault } from "../../src/vault/index.ts";
import { cardMeta } from "../support/card-meta.ts";
import { expectLinear } from "../support/growth.ts";
import { makeVault, removeDir } from "../support/vault.ts";

/** A people card whose one keyword is "<key> keyword". */
const meta = (key: string, extra: Partial<CardMeta> = {}) =>
  cardMeta(key, { keywords: [`${key} keyword`], ...extra });

const codes = (cards: CardMeta[]) => checkCards(cards, []).map((f) => `${f.severity} ${f.code}`);

describe("the health check", () => {
  test.each([
    ["a healthy card has no findings", meta("Alice"), []],
    ["no keywords or aliases", meta("Alice", { keywords: [] }), ["warning no_keywords"]],
    [
      "a common word as a keyword",
      meta("Alice", { keywords: ["love", "Alice"] }),
      ["warning generic_keyword"],
    ],
    [
      "a one-letter word as a keyword",
      meta("Alice", { keywords: ["I", "Alice"] }),
      ["warning generic_keyword"],
    ],
    [
      "a two-letter Latin term matches inside words",
      meta("Alice", { aliases: ["Al"] }),
      ["warning generic_keyword"],
    ],
    [
      "a longer term inside an everyday word (ally in really)",
      meta("Alice", { aliases: ["Ally"] }),
      ["warning generic_keyword"],
    ],
    [
      "the same term on a card that asks for whole words",
      meta("Alice", { aliases: ["Ally"], rules: { ...DEFAULT_RULES, wholeWords: true } }),
      [],
    ],
    [
      "a title that differs from the file name",
      meta("Alice", { title: "Alice B." }),
      ["warning title_mismatch"],
    ],
    [
      "a title that is no legal file name, in the file named after it",
      meta("aux_.txt", { title: "aux.txt" }),
      [],
    ],
    ["a ref to a card that does not exist", meta("Alice", { refs: ["Nobody"] }), ["warning dangling_ref"]],
    [
      "a word both required and forbidden can never fire",
      meta("Alice", { secondary: { all: ["cafe"], any: [], not: ["Cafe"], notAll: [] } }),
      ["error never_fires"],
    ],
    [
      "terms without a letter or digit can never fire",
      meta("…", { title: "…", keywords: ["!!"] }),
      ["error never_fires"],
    ],
  ])("%s", (_name, card, expected) => {
    expect(codes([card])).toEqual(expected);
  });

  test("an unparseable card is an error naming its path", () => {
    const [f] = checkCards([], [{ path: "people/Bad.md", kind: "people", key: "Bad", error: "bad YAML" }]);
    expect(f).toEqual({
      severity: "error",
      code: "unparseable",
      card: "people/Bad",
      path: "people/Bad.md",
      detail: "bad YAML",
    });
  });

  test("values that fell back to defaults are reported per card", () => {
    const found = checkCards(
      [meta("Alice")],
      [],
      [{ path: "people/Alice.md", warnings: ["priority fell back"] }],
    );
    expect(found.map((f) => f.detail)).toEqual(["priority fell back"]);
  });

  test("a ref may name a card by key, title or kind/key", () => {
    const bob = meta("Bob", { title: "Robert" });
    for (const ref of ["Bob", "robert", "people/Bob"]) {
      // Bob's own title differs from his file name; the ref itself raises nothing.
      expect(codes([meta("Alice", { refs: [ref] }), bob])).toEqual(["warning title_mismatch"]);
    }
  });
});

describe("duplicate names", () => {
  test("two cards with one title in different kinds are both reported", () => {
    const a = meta("Eldoria", { kind: "people", path: "people/Eldoria.md" });
    const b = meta("Eldoria", { kind: "entry", path: "Eldoria.md" });
    const found = checkCards([a, b], []).filter((f) => f.code === "duplicate_name");
    expect(found.map((f) => f.card)).toEqual(["people/Eldoria", "entry/Eldoria"]);
  });
});

const words = (n: number, prefix = "word") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe("large cards and large vaults", () => {
  test.each([
    [
      "words both required and forbidden",
      (n: number) => [meta("A", { secondary: { all: words(n), any: [], not: words(n), notAll: [] } })],
      5_000,
    ],
    [
      "cards with one title",
      (n: number) =>
        Array.from({ length: n }, (_, i) => meta(`k${i}`, { title: "Same", keywords: ["same"] })),
      3_000,
    ],
    ["keywords on one card", (n: number) => [meta("A", { keywords: words(n) })], 100_000],
    ["refs on one card", (n: number) => [meta("A", { refs: words(n) })], 100_000],
  ])("checking %s costs time linear in their number", async (_name, cards, most) => {
    await expectLinear((n) => checkCards(cards(n), []), most / 20, most);
  });

  test("a duplicate title shared by 3,000 cards names a few of the others, not all of them", () => {
    const cards = Array.from({ length: 3000 }, (_, i) => meta(`k${i}`, { title: "Same" }));
    const found = checkCards(cards, []).filter((f) => f.code === "duplicate_name");
    expect(found.length).toBe(3000);
    expect(found[0]!.detail).toContain("people/k1, people/k2, people/k3 and 2,996 more");
    expect(Math.max(...found.map((f) => f.detail.length))).toBeLessThan(300);
  });

  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) removeDir(d);
  });

  test("a card file with 100,000 keywords loads with 1,000 of them, and check names it", () => {
    const root = makeVault([]);
    dirs.push(root);
    const list = words(100_000, "kw");
    fs.writeFileSync(
      path.join(root, "Big.md"),
      `---\ntitle: Big\nkeywords: [${list.join(", ")}]\n---\nbody\n`,
    );
    const index = loadIndex(openVault(root));
    const found = checkCards(index.cards, index.broken, index.warnings);
    expect(index.cards.find((c) => c.key === "Big")!.keywords).toEqual(list.slice(0, 1000));
    expect(found).toContainEqual(
      expect.objectContaining({
        card: "entry/Big",
        detail: "keywords has 100,000 words; only the first 1,000 are used",
      }),
    );
  });
});
