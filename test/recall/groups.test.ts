// Inclusion groups: of the fired cards sharing a group one stays, as SillyTavern decides it.
import { describe, expect, test } from "bun:test";
import { chosen, lorebook, person, verdictOf, verdicts } from "./_lorebook.ts";

const member = (name: string, extra = "") => person(name, `keywords: [tea]\ngroup: drinks\n${extra}`);

describe("inclusion groups", () => {
  test("exactly one card of a group survives; the others are vetoed group", async () => {
    const book = await lorebook([
      member("Ann"),
      member("Ben"),
      member("Cy"),
      person("Dee", "keywords: [tea]"),
    ]);
    const result = await book.recall(["tea"], { seed: "fixed" });
    const inGroup = result.selection.filter((e) => e.card.key !== "Dee");
    expect(inGroup.filter((e) => e.verdict === "chosen")).toHaveLength(1);
    expect(inGroup.filter((e) => e.reason === "group")).toHaveLength(2);
    expect(verdictOf(result, "Dee")).toBe("Dee chosen named");
  });

  test("a lone fired member stays", async () => {
    const book = await lorebook([member("Ann"), person("Ben", "group: drinks")]);
    expect(chosen(await book.recall(["tea"]))).toEqual(["Ann"]);
  });

  test("an overriding member wins: the highest order among overriders", async () => {
    const book = await lorebook([
      member("Ann", "group_override: true\norder: 10"),
      member("Ben", "group_override: true\norder: 50"),
      member("Cy", "group_weight: 1000"),
    ]);
    for (const seed of ["a", "b", "c", "d"])
      expect(chosen(await book.recall(["tea"], { seed }))).toEqual(["Ben"]);
  });

  test("group scoring keeps only the members that matched the most terms", async () => {
    const book = await lorebook([
      member("Ann", "group_scoring: true\nkeywords: [tea, cake]"),
      member("Ben", "group_scoring: true\ngroup_weight: 1000"),
    ]);
    for (const seed of ["a", "b", "c", "d"]) {
      expect(verdicts(await book.recall(["tea and cake"], { seed }))).toEqual([
        "Ann chosen named",
        "Ben vetoed/group named",
      ]);
    }
  });

  test("without group scoring the better-matched member can still lose the draw", async () => {
    const book = await lorebook([
      member("Ann", "keywords: [tea, cake]"),
      member("Ben", "group_weight: 1000"),
    ]);
    const winners = new Set<string>();
    for (let i = 0; i < 20; i++)
      winners.add(chosen(await book.recall(["tea and cake"], { seed: `s${i}` }))[0]!);
    expect(winners).toEqual(new Set(["Ann", "Ben"]));
  });

  test("the weighted draw is reproducible with a fixed seed", async () => {
    const book = await lorebook([member("Ann"), member("Ben"), member("Cy")]);
    for (const seed of ["one", "two", "three"]) {
      const first = chosen(await book.recall(["tea"], { seed }));
      expect(chosen(await book.recall(["tea"], { seed }))).toEqual(first);
    }
  });

  test("over many seeds each member wins roughly its weight's share", async () => {
    const book = await lorebook([member("Ann", "group_weight: 300"), member("Ben", "group_weight: 100")]);
    const wins = { Ann: 0, Ben: 0 } as Record<string, number>;
    for (let i = 0; i < 400; i++) wins[chosen(await book.recall(["tea"], { seed: `s${i}` }))[0]!]!++;
    expect(wins.Ann! / 400).toBeGreaterThan(0.65);
    expect(wins.Ann! / 400).toBeLessThan(0.85);
  });

  test("a card in several groups must win each: losing one vetoes it, as in SillyTavern", async () => {
    const book = await lorebook([
      person("Ann", "keywords: [tea]\ngroup: drinks, food\ngroup_override: true\norder: 50"),
      member("Ben", "group_override: true\norder: 10"),
      person("Cy", "keywords: [tea]\ngroup: food\ngroup_override: true\norder: 90"),
    ]);
    expect(verdicts(await book.recall(["tea"]))).toEqual([
      "Ann vetoed/group named",
      "Ben vetoed/group named",
      "Cy chosen named",
    ]);
  });

  test("the group's winner can still miss its draw, leaving the group empty (groups before probability)", async () => {
    const book = await lorebook([member("Ann", "group_override: true\nprobability: 0"), member("Ben")]);
    expect(verdicts(await book.recall(["tea"]))).toEqual([
      "Ann vetoed/probability named",
      "Ben vetoed/group named",
    ]);
  });

  test("a card asked for by id wins its group outright", async () => {
    const book = await lorebook([member("Ann", "group_override: true"), member("Ben")]);
    const result = await book.recall(["tea"], { explicit: new Set(["people/Ben"]) });
    expect(chosen(result)).toEqual(["Ben"]);
    expect(verdictOf(result, "Ann")).toBe("Ann vetoed/group named");
  });

  test("always cards compete in their groups too", async () => {
    const book = await lorebook([
      person("Ann", "context: always\ngroup: drinks"),
      member("Ben", "group_override: true"),
    ]);
    expect(verdicts(await book.recall(["tea"]))).toEqual(["Ben chosen named", "Ann vetoed/group always"]);
  });
});
