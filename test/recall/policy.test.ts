// Context policy: always / automatic / manual / never, cards asked for by id, and what each fired card reports.
import { describe, expect, test } from "bun:test";
import { firedCards, leftOutCards } from "../../src/recall/index.ts";
import { chosen, lorebook, person, verdictOf, verdicts } from "./_lorebook.ts";

describe("context policy", () => {
  test.each([
    ["an automatic card enters when named", "context: automatic", "Ann is here", "Ann chosen named"],
    ["an automatic card unnamed is absent", "context: automatic", "nobody", "absent"],
    ["an always card enters unnamed", "context: always", "nobody", "Ann chosen always"],
    ["an always card named enters as always", "context: always", "Ann is here", "Ann chosen always"],
    [
      "a manual card named is vetoed not_automatic",
      "context: manual",
      "Ann is here",
      "Ann vetoed/not_automatic named",
    ],
    ["inject: false named is manual", "inject: false", "Ann is here", "Ann vetoed/not_automatic named"],
    ["a never card named is vetoed never", "context: never", "Ann is here", "Ann vetoed/never named"],
    ["a never card unnamed is absent", "context: never", "nobody", "absent"],
  ])("%s", async (_name, frontmatter, message, expected) => {
    const book = await lorebook([person("Ann", frontmatter)]);
    expect(verdictOf(await book.recall([message]), "Ann")).toBe(expected);
  });

  test("an always card unnamed scores 0; named, it keeps its hits and score", async () => {
    const book = await lorebook([person("Ann", "context: always\nkeywords: [Nan]")]);
    const unnamed = firedCards(await book.recall(["nobody"]))[0]!;
    const named = firedCards(await book.recall(["Nan"]))[0]!;
    expect([unnamed.score, unnamed.hits]).toEqual([0, []]);
    expect([named.score, named.hits]).toEqual([2, ["nan"]]);
  });

  test("always cards ignore their secondary words, as SillyTavern's constant entries skip key checks", async () => {
    const book = await lorebook([person("Ann", "context: always\nsecondary: { all: [bees] }")]);
    expect(chosen(await book.recall(["Ann without the other word"]))).toEqual(["Ann"]);
  });

  test.each([
    ["a card of a kind folder", ["people/Ann.md", "---\nkeywords: [x]\n---\nAnn.\n"], "people/Ann", ["Ann"]],
    [
      "a card in the vault root (kind entry)",
      ["Ann.md", "---\nkeywords: [x]\n---\nAnn.\n"],
      "entry/Ann",
      ["Ann"],
    ],
    ["a disabled card", ["people/Ann.md", "---\nenabled: false\n---\nAnn.\n"], "people/Ann", []],
    ["an id of no card", ["people/Ann.md", "---\nkeywords: [x]\n---\nAnn.\n"], "people/Bo", []],
  ] as const)("asked for by id: %s", async (_name, file, id, expected) => {
    const book = await lorebook([[file[0], file[1]]]);
    expect(chosen(await book.recall(["nobody"], { explicit: new Set([id]) }))).toEqual([...expected]);
  });

  test("an always card with `enabled: false` never appears", async () => {
    const book = await lorebook([person("Ann", "context: always\nenabled: false")]);
    expect(verdicts(await book.recall(["Ann"]))).toEqual([]);
  });
});

describe("cards asked for by id", () => {
  test.each([
    ["a manual card asked for enters unnamed", "context: manual", "nobody", "Ann chosen explicit"],
    ["a manual card asked for and named enters as explicit", "context: manual", "Ann", "Ann chosen explicit"],
    ["an automatic card asked for enters unnamed", "", "nobody", "Ann chosen explicit"],
    ["a never card asked for is still vetoed never", "context: never", "nobody", "Ann vetoed/never explicit"],
    [
      "a card asked for skips its secondary words",
      "secondary: { all: [bees] }",
      "Ann",
      "Ann chosen explicit",
    ],
  ])("%s", async (_name, frontmatter, message, expected) => {
    const book = await lorebook([person("Ann", frontmatter)]);
    const result = await book.recall([message], { explicit: new Set(["people/Ann"]) });
    expect(verdictOf(result, "Ann")).toBe(expected);
  });

  test("an id that names no enabled card brings nothing", async () => {
    const book = await lorebook([person("Ann", "enabled: false"), person("Ben")]);
    const result = await book.recall(["nobody"], { explicit: new Set(["people/Ann", "people/Nobody"]) });
    expect(verdicts(result)).toEqual([]);
  });
});

describe("what each fired card reports", () => {
  test("its via, its policy, and its own placement; vetoed cards are not in fired", async () => {
    const book = await lorebook([
      person("Ann", "position: at_depth\ndepth: 4\nrole: system"),
      person("Ben", "context: always"),
      person("Cy", "context: manual"),
    ]);
    const result = await book.recall(["Ann and Cy"]);
    const fired = firedCards(result).map((f) => [f.card.key, f.via, f.policy, f.placement]);
    expect(fired).toEqual([
      ["Ann", "named", "automatic", { position: "at_depth", depth: 4, role: "system" }],
      ["Ben", "always", "always", { position: null, depth: null, role: null }],
    ]);
    expect(verdictOf(result, "Cy")).toBe("Cy vetoed/not_automatic named");
  });

  test("leftOut lists the fired cards the budget left out, with why", async () => {
    const big = `${"x".repeat(300)}\n`;
    const book = await lorebook([person("Ann", "", big), person("Ben", "", big)]);
    const result = await book.recall(["Ann Ben"], { budget: 400 });
    expect(leftOutCards(result).map((f) => [f.card.key, f.verdict, f.reason])).toEqual([
      ["Ben", "left_out", "budget"],
    ]);
  });
});
