// The context door: why each card is or is not in front of the model, one line per card, from one recall.
import { afterEach, describe, expect, test } from "bun:test";
import { cardsNamed, type Explanation, explain } from "../../src/explain/explain.ts";
import { openEngine, type RecallOptions, type Turn } from "../../src/recall/index.ts";
import { chanceDraw } from "../../src/recall/stages/chance.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let open: TempVault[] = [];
afterEach(() => {
  for (const vault of open) vault.remove();
  open = [];
});

const card = (name: string, frontmatter: string, body = `${name} is here.\n`): [string, string] => [
  `people/${name}.md`,
  cardText(frontmatter, body),
];

/** Person messages, oldest first, an assistant reply between each two. */
function said(...messages: string[]): Turn[] {
  return messages.flatMap((text, i): Turn[] =>
    i === 0
      ? [{ role: "user", text }]
      : [
          { role: "assistant", text: "(reply)" },
          { role: "user", text },
        ],
  );
}

interface Case {
  cards: [string, string][];
  turns: Turn[];
  options?: RecallOptions;
  ask?: string[];
  ledger?: Record<string, number>;
}

async function door(c: Case): Promise<Explanation> {
  const vault = tempVault(Object.fromEntries(c.cards));
  open.push(vault);
  const engine = await openEngine(vault.root, { segmenter: false });
  try {
    const result = await engine.recall(c.turns, { candidates: false, ...c.options });
    const asked = cardsNamed(await engine.source.current(), c.ask ?? []);
    expect(asked.unknown).toEqual([]);
    const ledger = c.ledger && new Map(Object.entries(c.ledger));
    return explain(result, { turns: c.turns, asked: asked.cards, ...c.options, ledger });
  } finally {
    engine.close();
  }
}

const lineOf = (x: Explanation, key: string) => x.cards.find((c) => c.key === key)?.line ?? "absent";
const entryOf = (x: Explanation, key: string) => x.cards.find((c) => c.key === key)!;

/** A seed under which Ann's probability draw is at least `at` (the draw is a pure hash: chance.ts). */
function seedDrawingAtLeast(at: number): string {
  for (let i = 0; ; i++) if (chanceDraw(`s${i}`, "people/Ann") >= at) return `s${i}`;
}

describe("why a card named with --card did not fire", () => {
  test.each<[string, Case, string | RegExp, Record<string, unknown>]>([
    [
      "no term of it anywhere",
      { cards: [card("Ann", "keywords: [Ann]")], turns: said("hello"), ask: ["Ann"] },
      "no term of it in its window (the last 7 messages), nor earlier",
      { verdict: "not_noticed", reason: "no_term" },
    ],
    [
      "a term said earlier than its window reads, with the distance and the window",
      {
        cards: [card("Ann", "keywords: [Ann]")],
        turns: said("Ann left", "so", "and then?"),
        options: { scanDepth: 0 },
        ask: ["Ann"],
      },
      "no term of it in its window (the current message); “ann” was said 4 messages back, outside it",
      { why: { window: { messages: 1, nearest: { term: "ann", back: 4 } } } },
    ],
    [
      "a secondary all word missing, named",
      {
        cards: [card("Ann", "keywords: [tea]\nsecondary: { all: [cake] }")],
        turns: said("tea?"),
        ask: ["Ann"],
      },
      "secondary all: “cake” is not in its window",
      { reason: "secondary", why: { secondary: { rule: "all", words: ["cake"] } } },
    ],
    [
      "a secondary not word in the message that named it",
      {
        cards: [card("Ann", "keywords: [tea]\nsecondary: { not: [coffee, milk] }")],
        turns: said("tea with milk"),
        ask: ["Ann"],
      },
      "secondary not: “milk” is in a message that named it",
      { why: { secondary: { rule: "not", words: ["milk"] } } },
    ],
    [
      "@@exclude_keys with the word",
      {
        cards: [card("Ann", 'keywords: [tea]\ndecorators: ["@@exclude_keys storm, rain"]')],
        turns: said("tea in the rain"),
        ask: ["Ann"],
      },
      "@@exclude_keys: “rain” is in its window",
      { why: { secondary: { rule: "exclude_keys", words: ["rain"] } } },
    ],
    [
      "policy manual",
      { cards: [card("Ann", "context: manual")], turns: said("Ann?"), ask: ["Ann"] },
      "manual: it fires only when asked for by name",
      { reason: "not_automatic", policy: "manual" },
    ],
    [
      "policy never",
      { cards: [card("Ann", "context: never")], turns: said("Ann?"), ask: ["Ann"] },
      "policy never: it never fires",
      { reason: "never" },
    ],
    [
      "inject: false",
      { cards: [card("Ann", "inject: false\ncontext: automatic")], turns: said("Ann?"), ask: ["Ann"] },
      "inject: false: it never fires on its own words",
      { reason: "not_automatic" },
    ],
    [
      "disabled",
      { cards: [card("Ann", "enabled: false")], turns: said("Ann?"), ask: ["Ann"] },
      "disabled (enabled: false)",
      { verdict: "not_noticed", reason: "disabled" },
    ],
    [
      "cooldown, with the message it may fire again at",
      {
        cards: [card("Ann", "cooldown: 4")],
        turns: said("Ann", "Ann?"),
        options: {
          history: {
            messages: 3,
            assistantMessages: 1,
            memory: { "people/Ann": { last: 1, cooldownUntil: 5 } },
          },
        },
        ask: ["Ann"],
      },
      "cooling down: message 3 now, it may fire again at message 5",
      { reason: "cooldown", why: { clock: { rule: "cooldown", now: 3, until: 5 } } },
    ],
    [
      "delay",
      { cards: [card("Ann", "delay: 4")], turns: said("Ann?"), ask: ["Ann"] },
      "delay: the conversation has 1 message(s); it waits for 4",
      { reason: "delay", why: { clock: { rule: "delay", now: 1, until: 4 } } },
    ],
    [
      "@@activate_only_after",
      {
        cards: [card("Ann", 'decorators: ["@@activate_only_after 2"]')],
        turns: said("Ann?"),
        ask: ["Ann"],
      },
      "@@activate_only_after: 0 assistant message(s) so far; it needs 3",
      { reason: "timing", why: { clock: { rule: "activate_only_after", now: 0, until: 3 } } },
    ],
    [
      "a group lost, and to whom",
      {
        cards: [
          card("Ann", "keywords: [tea]\ngroup: drinks"),
          card("Ben", "keywords: [tea]\ngroup: drinks\ngroup_override: true"),
        ],
        turns: said("tea"),
        ask: ["Ann"],
      },
      "lost inclusion group “drinks”: “Ben” overrides (group_override)",
      { reason: "group", why: { group: { group: "drinks", winner: "people/Ben", how: "override" } } },
    ],
    [
      "a group held by a card asked for by name",
      {
        cards: [card("Ann", "keywords: [tea]\ngroup: drinks"), card("Ben", "keywords: [tea]\ngroup: drinks")],
        turns: said("tea"),
        options: { ask: ["Ben"] },
        ask: ["Ann"],
      },
      "lost inclusion group “drinks”: “Ben” holds it (still sticky, or asked for)",
      { why: { group: { group: "drinks", winner: "people/Ben", how: "kept" } } },
    ],
    [
      "a group a card of the first pass filled before the reach pass",
      {
        cards: [
          card("Dee", "keywords: [tea]\ngroup: drinks"),
          card("Ann", "keywords: [Ann]", "Ann likes Eve.\n"),
          card("Eve", "keywords: [Eve]\ngroup: drinks"),
        ],
        turns: said("Ann and tea"),
        ask: ["Eve"],
      },
      "lost inclusion group “drinks”: “Dee” filled it before the reach pass",
      { via: "reached", why: { group: { winner: "people/Dee", how: "taken" }, reached_from: "people/Ann" } },
    ],
    [
      "the probability roll, with the draw and the chance",
      {
        cards: [card("Ann", "probability: 30")],
        turns: said("Ann?"),
        options: { seed: seedDrawingAtLeast(30) },
        ask: ["Ann"],
      },
      "probability 30: drew",
      { reason: "probability", why: { roll: { chance: 30 } } },
    ],
    [
      "probability 0 is never drawn",
      { cards: [card("Ann", "probability: 0")], turns: said("Ann?"), ask: ["Ann"] },
      "probability 0: never drawn",
      { why: { roll: { draw: null, chance: 0 } } },
    ],
    [
      "the budget, and what took the room",
      {
        cards: [card("Ann", "priority: 5", `${"Ann. ".repeat(30)}\n`), card("Ben", "priority: 0")],
        turns: said("Ann and Ben"),
        options: { budget: 100 },
        ask: ["Ben"],
      },
      "over the character budget: “Ann” (",
      { reason: "budget", why: { budget: { limit: 100, taken_by: [{ id: "people/Ann" }] } } },
    ],
    [
      "a character budget of 0: the declared half alone",
      {
        cards: [card("Ann", "keywords: [Ann]"), card("Ben", "keywords: [Ben]")],
        turns: said("Ann and Ben"),
        options: { budget: 0 },
        ask: ["Ben"],
      },
      "the character budget is 0: only always-on and asked-for cards go in",
      { reason: "budget", why: { budget: { limit: 0, taken_by: [] } } },
    ],
    [
      "the token budget, and what took its room, in characters",
      {
        cards: [card("Ann", "priority: 5", `${"Ann. ".repeat(30)}\n`), card("Ben", "priority: 0")],
        turns: said("Ann and Ben"),
        options: { budgetTokens: 20 },
        ask: ["Ben"],
      },
      /^Ben \[people\] left out: .*over the token budget: “Ann” \(\d+ chars\) took the room; it needs \d+ chars$/,
      { reason: "budget_tokens", why: { budget: { taken_by: [{ id: "people/Ann" }] } } },
    ],
    [
      "the budget's room, taken by the automatic half alone: an always-on card that reached them is not named",
      {
        cards: [
          card("Rules", "context: always", `Ann and Ben. ${"Be kind. ".repeat(30)}\n`),
          card("Ann", "keywords: [Ann]\npriority: 5", `${"Ann. ".repeat(30)}\n`),
          card("Ben", "keywords: [Ben]\npriority: 0"),
        ],
        turns: said("hello there"),
        options: { budget: 100 },
        ask: ["Ben"],
      },
      "over the character budget: “Ann” (",
      { reason: "budget", why: { budget: { limit: 100, taken_by: [{ id: "people/Ann" }] } } },
    ],
    [
      "already in context since turn N, from the conversation's ledger",
      {
        cards: [card("Ann", "keywords: [Ann]")],
        turns: said("Ann?"),
        options: { inContext: new Set(["people/Ann"]) },
        ledger: { "people/Ann": 3 },
        ask: ["Ann"],
      },
      "already sent at turn 3 and still in context: not sent again",
      { verdict: "in_context", why: { in_context: { how: "recorded", since_turn: 3 } } },
    ],
    [
      "present in a block of ours already in the request",
      {
        cards: [card("Ann", "keywords: [Ann]")],
        turns: said("Ann?"),
        options: { present: ["A memory surfaces:\n\n### Ann [people]\nAnn is here."] },
        ask: ["Ann"],
      },
      "a block of ours already in the request holds it",
      { verdict: "in_context", why: { in_context: { how: "present", since_turn: null } } },
    ],
    [
      "waiting to be reached (delay_until_recursion)",
      { cards: [card("Ann", "delay_until_recursion: true")], turns: said("Ann?"), ask: ["Ann"] },
      "delay_until_recursion: it fires only when reached",
      { reason: "recursion_only" },
    ],
  ])("%s", async (_name, c, line, fields) => {
    const x = await door(c);
    const key = c.ask![0]!;
    if (typeof line === "string") expect(lineOf(x, key)).toContain(line);
    else expect(lineOf(x, key)).toMatch(line);
    expect(entryOf(x, key)).toMatchObject({ asked: true, ...fields });
  });
});

describe("every card that fired, was reached, left out or nearly fired gets a line", () => {
  test("words and where they were said, policy, place and tier, and the budget's decision", async () => {
    const x = await door({
      cards: [
        card("Ann", "keywords: [Ann, tea]"),
        card("Rules", "context: always", "Be kind.\n"),
        card("Deep", "keywords: [deep]\nposition: at_depth\ndepth: 2\nrole: system"),
      ],
      turns: said("tea time", "Ann and the deep end"),
    });
    expect(lineOf(x, "Ann")).toBe(
      "Ann [people] goes in: named: “ann” in the current message, “tea” in 2 messages back; " +
        "policy automatic; the surface’s default place, volatile; in budget, " +
        `${entryOf(x, "Ann").chars} chars`,
    );
    expect(lineOf(x, "Rules")).toContain("goes in: always on; policy always; the surface’s default place");
    expect(entryOf(x, "Rules").tier).toBe("stable");
    expect(lineOf(x, "Deep")).toContain("at depth 2 as system, placed");
    expect(x.injected).toEqual(expect.arrayContaining(["Ann", "Rules", "Deep"]));
    expect(x.blocks.flatMap((b) => b.cards)).toEqual(expect.arrayContaining(["people/Ann"]));
  });

  test("a reached card names the card whose text reached it", async () => {
    const x = await door({
      cards: [card("Ann", "keywords: [Ann]", "Ann knows Ben.\n"), card("Ben", "keywords: [Ben]")],
      turns: said("Ann?"),
    });
    expect(entryOf(x, "Ben")).toMatchObject({ via: "reached", why: { reached_from: "people/Ann" } });
    expect(lineOf(x, "Ben")).toContain("reached through “Ann”’s text (“ben”)");
  });

  test("a card that nearly fired (a hit, then a veto) is explained without being asked about", async () => {
    const x = await door({
      cards: [card("Ann", "keywords: [tea]\nsecondary: { all: [cake] }")],
      turns: said("tea"),
    });
    expect(entryOf(x, "Ann")).toMatchObject({ asked: false, verdict: "vetoed", reason: "secondary" });
  });

  test("a card asked about that did fire is marked asked and explained as it went in", async () => {
    const x = await door({ cards: [card("Ann", "keywords: [Ann]")], turns: said("Ann"), ask: ["Ann"] });
    expect(x.cards).toHaveLength(1);
    expect(entryOf(x, "Ann")).toMatchObject({ asked: true, verdict: "chosen" });
  });

  test("a term inside its window that does not count under the card's rules is said so", async () => {
    const x = await door({
      cards: [card("Al", "keywords: [Al]\nwhole_words: true")],
      turns: said("Also this"),
      ask: ["Al"],
    });
    expect(lineOf(x, "Al")).toContain("“al” is in the current message but does not count there");
  });
});

describe("names for --card", () => {
  test("a key, a title or kind/key finds the card, as `read` finds it; an unknown name is reported", async () => {
    const vault = tempVault({ "people/ann.md": cardText("title: Ann Lee", "x\n") });
    open.push(vault);
    const engine = await openEngine(vault.root, { segmenter: false });
    const compiled = await engine.source.current();
    const named = cardsNamed(compiled, ["ann", "ann lee", "people/ann", "Nobody"]);
    expect(named.cards.map((c) => c.key)).toEqual(["ann", "ann", "ann"]);
    expect(named.unknown).toEqual(["Nobody"]);
    engine.close();
  });
});
