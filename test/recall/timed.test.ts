// Timed effects over a conversation: sticky, cooldown, delay and the V3 history decorators, counted in messages.
import { describe, expect, test } from "bun:test";
import { clockOf, timedVeto } from "../../src/recall/stages/timed.ts";
import { converse, lorebook, person, verdictOf } from "./_lorebook.ts";

/** Ann's verdict at each person turn of a conversation (message counts 1, 3, 5, …). */
async function annOver(frontmatter: string, said: string[], options = {}): Promise<string[]> {
  const book = await lorebook([person("Ann", frontmatter), person("Zed")]);
  return (await converse(book, said, options)).map((r) => verdictOf(r, "Ann"));
}

describe("sticky, cooldown and delay (SillyTavern's counts: messages, current included)", () => {
  test.each([
    [
      "sticky 3: in unnamed while the count is below its start + 3",
      "sticky: 3",
      ["Ann", "Zed", "Zed"],
      ["Ann chosen named", "Ann chosen sticky", "absent"],
    ],
    [
      "sticky 5 holds two more person turns",
      "sticky: 5",
      ["Ann", "Zed", "Zed", "Zed"],
      ["Ann chosen named", "Ann chosen sticky", "Ann chosen sticky", "absent"],
    ],
    [
      "cooldown 4: named again too soon it is cooled; after, it fires",
      "cooldown: 4",
      ["Ann", "Ann", "Ann"],
      ["Ann chosen named", "Ann vetoed/cooldown named", "Ann chosen named"],
    ],
    [
      "cooldown starts when stickiness ends, that very turn",
      "sticky: 3\ncooldown: 4",
      ["Ann", "Zed", "Ann", "Ann", "Ann"],
      [
        "Ann chosen named",
        "Ann chosen sticky",
        "Ann vetoed/cooldown named",
        "Ann vetoed/cooldown named",
        "Ann chosen named",
      ],
    ],
    [
      "a sticky card is not cooled while sticky",
      "sticky: 5\ncooldown: 2",
      ["Ann", "Ann", "Ann"],
      ["Ann chosen named", "Ann chosen sticky", "Ann chosen sticky"],
    ],
    [
      "delay 4: nothing while the conversation has fewer than 4 messages",
      "delay: 4",
      ["Ann", "Ann", "Ann"],
      ["Ann vetoed/delay named", "Ann vetoed/delay named", "Ann chosen named"],
    ],
    [
      "always cards keep their cooldown too",
      "context: always\ncooldown: 3",
      ["Zed", "Zed", "Zed"],
      ["Ann chosen always", "Ann vetoed/cooldown always", "Ann chosen always"],
    ],
  ])("%s", async (_name, frontmatter, said, expected) => {
    expect(await annOver(frontmatter, said)).toEqual(expected);
  });

  test("a still-sticky card skips its draw", async () => {
    const book = await lorebook([person("Ann", "sticky: 5\nprobability: 0")]);
    const first = await book.recall(["Ann"], { explicit: new Set(["people/Ann"]) });
    expect(verdictOf(first, "Ann")).toBe("Ann chosen explicit");
    const turns = [
      { role: "user" as const, text: "Ann" },
      { role: "assistant" as const, text: "(reply)" },
      { role: "user" as const, text: "Ann again" },
    ];
    const history = { messages: 3, assistantMessages: 1, memory: first.timed };
    expect(verdictOf(await book.recall(turns, { history }), "Ann")).toBe("Ann chosen sticky");
    expect(verdictOf(await book.recall(turns), "Ann")).toBe("Ann vetoed/probability named");
  });

  test("a manual card asked for once stays in while sticky, named or not", async () => {
    const book = await lorebook([person("Ann", "context: manual\nsticky: 5"), person("Zed")]);
    const first = await book.recall(["hi"], { explicit: new Set(["people/Ann"]) });
    const turns = (text: string) => [
      { role: "user" as const, text: "hi" },
      { role: "assistant" as const, text: "(reply)" },
      { role: "user" as const, text },
    ];
    const history = { messages: 3, assistantMessages: 1, memory: first.timed };
    expect(verdictOf(await book.recall(turns("Zed"), { history }), "Ann")).toBe("Ann chosen sticky");
    expect(verdictOf(await book.recall(turns("Ann"), { history }), "Ann")).toBe("Ann chosen sticky");
    expect(verdictOf(await book.recall(turns("Ann")), "Ann")).toBe("Ann vetoed/not_automatic named");
  });

  test("a still-sticky card named again is not held to its secondary words", async () => {
    const book = await lorebook([person("Ann", "sticky: 5\nsecondary: { all: [bees] }")]);
    const turns = await converse(book, ["Ann and bees", "Ann alone"]);
    expect(turns.map((r) => verdictOf(r, "Ann"))).toEqual(["Ann chosen named", "Ann chosen sticky"]);
  });

  test("a still-sticky card wins its inclusion group", async () => {
    const book = await lorebook([
      person("Ann", "keywords: [tea]\ngroup: drinks\nsticky: 5"),
      person("Ben", "keywords: [tea]\ngroup: drinks\ngroup_override: true"),
    ]);
    const [first, second] = await converse(book, ["Ann", "tea"]);
    expect(verdictOf(first!, "Ann")).toBe("Ann chosen named");
    expect([verdictOf(second!, "Ann"), verdictOf(second!, "Ben")]).toEqual([
      "Ann chosen sticky",
      "Ben vetoed/group named",
    ]);
  });

  test("a sticky card left out by the budget stays sticky", async () => {
    const big = `${"x".repeat(200)}\n`;
    const book = await lorebook([person("Ann", "sticky: 5"), person("Zed", "", big)]);
    const turns = await converse(book, ["Ann", "Zed", "nobody"], { budget: 100 });
    expect(turns.map((r) => verdictOf(r, "Ann"))).toEqual([
      "Ann chosen named",
      "Ann left_out/budget sticky",
      "Ann chosen sticky",
    ]);
  });
});

describe("the V3 history decorators (assistant messages)", () => {
  test.each([
    [
      "@@activate_only_after 1: only once more than one assistant message",
      "@@activate_only_after 1",
      ["Ann", "Ann", "Ann"],
      ["Ann vetoed/timing named", "Ann vetoed/timing named", "Ann chosen named"],
    ],
    [
      "@@activate_only_every 2: only when the assistant count is a multiple of 2",
      "@@activate_only_every 2",
      ["Ann", "Ann", "Ann"],
      ["Ann chosen named", "Ann vetoed/timing named", "Ann chosen named"],
    ],
    [
      "@@keep_activate_after_match: in for the rest of the conversation",
      "@@keep_activate_after_match",
      ["Zed", "Ann", "Zed", "Zed", "Zed"],
      ["absent", "Ann chosen named", "Ann chosen sticky", "Ann chosen sticky", "Ann chosen sticky"],
    ],
    [
      "@@dont_activate_after_match: never again once it fired",
      "@@dont_activate_after_match",
      ["Ann", "Ann", "Ann"],
      ["Ann chosen named", "Ann vetoed/timing named", "Ann vetoed/timing named"],
    ],
  ])("%s", async (_name, decorator, said, expected) => {
    expect(await annOver(`decorators: ["${decorator}"]`, said)).toEqual(expected);
  });
});

describe("the memory kept for the next turn", () => {
  test("without history the memory starts from this turn (messages = number of turns)", async () => {
    const book = await lorebook([person("Ann", "sticky: 3\ncooldown: 2")]);
    const result = await book.recall([
      { role: "user", text: "hi" },
      { role: "assistant", text: "hello" },
      { role: "user", text: "Ann" },
    ]);
    expect(result.timed).toEqual({ "people/Ann": { last: 3, stickyUntil: 6, cooldownUntil: 5 } });
  });

  test("cards with no timed effect leave no memory; effects that ran out are dropped", async () => {
    const book = await lorebook([person("Ann", "sticky: 3"), person("Zed")]);
    const turns = await converse(book, ["Ann Zed", "Zed", "Zed"]);
    expect(turns.map((r) => r.timed)).toEqual([
      { "people/Ann": { last: 1, stickyUntil: 4 } },
      { "people/Ann": { last: 1, stickyUntil: 4 } },
      {},
    ]);
  });

  test("keep and dont after match are remembered as -1 and spent", async () => {
    const book = await lorebook([
      person("Ann", 'decorators: ["@@keep_activate_after_match"]'),
      person("Ben", 'decorators: ["@@dont_activate_after_match"]'),
    ]);
    expect((await book.recall(["Ann Ben"])).timed).toEqual({
      "people/Ann": { last: 1, stickyUntil: -1 },
      "people/Ben": { last: 1, spent: true },
    });
  });

  test("a memory written at this count or later is from a retried turn and is ignored", async () => {
    const book = await lorebook([person("Ann", 'decorators: ["@@dont_activate_after_match"]')]);
    const history = { messages: 1, assistantMessages: 0, memory: { "people/Ann": { last: 1, spent: true } } };
    expect(verdictOf(await book.recall(["Ann"], { history }), "Ann")).toBe("Ann chosen named");
  });

  test("a card in context counts as fired: its effects start", async () => {
    const book = await lorebook([person("Ann", "cooldown: 4")]);
    const result = await book.recall(["Ann"], { inContext: new Set(["people/Ann"]) });
    expect(result.timed).toEqual({ "people/Ann": { last: 1, cooldownUntil: 5 } });
  });
});

describe("timedVeto, the clock's rule for one card", () => {
  const card = (rules: object) =>
    ({ key: "A", kind: "people", rules: { ...baseRules, ...rules } }) as unknown as Parameters<
      typeof timedVeto
    >[0];
  const baseRules = {
    policy: "automatic",
    sticky: 0,
    cooldown: 0,
    delay: 0,
    activateOnlyAfter: null,
    activateOnlyEvery: null,
    keepAfterMatch: false,
    dontAfterMatch: false,
  };
  const at = (messages: number, assistantMessages = 0, memory = {}) => ({
    messages,
    assistantMessages,
    memory,
  });

  test.each([
    ["delay beats sticky", { delay: 5 }, at(3), true, "delay"],
    [
      "sticky beats cooldown",
      { cooldown: 9, sticky: 9 },
      at(3, 0, { "people/A": { last: 1, cooldownUntil: 9 } }),
      true,
      null,
    ],
    ["every 0 is ignored", { activateOnlyEvery: 0 }, at(3, 1), false, null],
    [
      "a cooldown the card no longer has is ignored",
      {},
      at(3, 0, { "people/A": { last: 1, cooldownUntil: 9 } }),
      false,
      null,
    ],
  ])("%s", (_name, rules, clock, sticky, expected) => {
    expect(timedVeto(card(rules), "people/A", clock, sticky)).toBe(expected as null);
  });

  test("without history the clock counts the given turns", () => {
    const turns = [
      { role: "user" as const, text: "a" },
      { role: "assistant" as const, text: "b" },
      { role: "user" as const, text: "c" },
    ];
    expect(clockOf(turns)).toEqual({ messages: 3, assistantMessages: 1, memory: {} });
  });
});
