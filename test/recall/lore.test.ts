// The lore switch (seed 004's auto_lore() / no_lore()): which half of the lore a recall gives, as a
// table over one book; the declared half is selection.ts `isDeclared`.
import { describe, expect, test } from "bun:test";
import { isDeclared } from "../../src/recall/index.ts";
import { chosen, converse, lorebook, person, verdicts } from "./_lorebook.ts";

const book = () =>
  lorebook([
    person("Premise", "context: always", "The town runs on tides.\n"),
    person("Ann", "", "Ann works with Ben.\n"),
    person("Ben"),
    person("Cora", "context: manual"),
    person("Dot", "sticky: 3"),
  ]);

describe("the lore switch", () => {
  test.each([
    ["auto: both halves, the reached card too", "auto", ["Ann", "Cora", "Ben", "Premise"]],
    ["declared: always-on and asked-for cards only", "declared", ["Cora", "Premise"]],
    ["none: nothing at all", "none", []],
  ] as const)("%s", async (_name, lore, expected) => {
    const b = await book();
    const result = await b.recall(["Ann and Cora"], { lore, ask: ["Cora"] });
    expect(chosen(result).sort()).toEqual([...expected].sort());
    expect(result.lore).toBe(lore);
  });

  test("declared shows what was noticed, vetoed lore_declared, and reaches nothing", async () => {
    const b = await book();
    expect(verdicts(await b.recall(["Ann"], { lore: "declared" }))).toEqual([
      "Ann vetoed/lore_declared named",
      "Premise chosen always",
    ]);
  });

  test("declared leaves a still-sticky card out, and its stickiness runs on for later turns", async () => {
    const b = await book();
    const [first] = await converse(b, ["Dot"]);
    const turns = [
      { role: "user" as const, text: "Dot" },
      { role: "assistant" as const, text: "(reply)" },
      { role: "user" as const, text: "and then?" },
    ];
    const history = { messages: 3, assistantMessages: 1, memory: first!.timed };
    const auto = await b.recall(turns, { scanDepth: 0, history });
    expect(chosen(auto)).toContain("Dot");
    const declared = await b.recall(turns, { scanDepth: 0, lore: "declared", history });
    expect(chosen(declared)).not.toContain("Dot");
    expect(declared.timed["people/Dot"]).toEqual(first!.timed["people/Dot"]);
  });

  test("none keeps the timed memory as it was", async () => {
    const b = await book();
    const [first] = await converse(b, ["Dot"]);
    const none = await b.recall(["and then?"], {
      lore: "none",
      history: { messages: 3, assistantMessages: 1, memory: first!.timed },
    });
    expect(none.selection).toEqual([]);
    expect(none.blocks).toEqual([]);
    expect(none.timed).toEqual(first!.timed);
  });

  test.each([
    ["always", true],
    ["explicit", true],
    ["named", false],
    ["sticky", false],
    ["reached", false],
  ] as const)("a card in via %s is declared: %p", (via, declared) => {
    expect(isDeclared({ via })).toBe(declared);
  });
});
