// What goes in: the order cards are weighed in (closest to the person's words first) and the budgets
// in characters and tokens that drop whole cards from the far end.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CardMeta, CardRules } from "../../src/card/types.ts";
import { recallJson } from "../../src/explain/index.ts";
import {
  type Fired,
  firedCards,
  injectedKeys,
  leftOutCards,
  openEngine,
  type Selected,
} from "../../src/recall/index.ts";
import { budget } from "../../src/recall/stages/budget.ts";
import { order } from "../../src/recall/stages/order.ts";
import { TOKEN_ENCODING, tokenBudget, tokenCounter } from "../../src/recall/tokens.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";
import { entry as selected } from "./_entry.ts";

let vault: TempVault | undefined;
afterEach(() => vault?.remove());

const user = (text: string) => ({ role: "user" as const, text });
const assistant = (text: string) => ({ role: "assistant" as const, text });

const entry = (key: string, extra: Partial<Fired> = {}, rules: Partial<CardRules> = {}) =>
  selected(key, extra.text ?? "x", extra, rules);

describe("order: closest to the person's words first", () => {
  test("named now, then named only earlier, then in unnamed (always, sticky, asked for), then reached", () => {
    const out = order([
      entry("Reached", { via: "reached", found: new Set(), score: 9 }),
      entry("Always", { via: "always", found: new Set(), score: 0 }),
      entry("Sticky", { via: "sticky", found: new Set(), score: 0 }),
      entry("Earlier", { found: new Set([1, 2]), score: 5 }),
      entry("Now", { found: new Set([0, 3]), score: 1 }),
    ]);
    expect(out.map((e) => e.card.key)).toEqual(["Now", "Earlier", "Always", "Sticky", "Reached"]);
  });

  test("inside a tier: score, then priority, then title", () => {
    const out = order([
      entry("Bo", { score: 2 }),
      entry("Al", { score: 2 }),
      entry("Top", { score: 3 }),
      entry("Pri", { score: 2, card: { key: "Pri", kind: "people", title: "Pri", priority: 5 } as CardMeta }),
    ]);
    expect(out.map((e) => e.card.key)).toEqual(["Top", "Pri", "Al", "Bo"]);
  });
});

describe("budget: whole cards, the far end dropped first", () => {
  const framing = "A memory surfaces:\n\n";
  /** A stand-in counter: one token per word, so the cases read plainly. */
  const words = { count: (t: string) => t.split(/\s+/).filter(Boolean).length };
  const cards = (sizes: number[]) => sizes.map((n, i) => entry(`C${i}`, { text: "w ".repeat(n).trim() }));
  const outcome = (out: Selected[]): string[] =>
    out.map((e) => (e.verdict === "chosen" ? "in" : String(e.reason)));

  test.each([
    ["tokens within both budgets: all in", 1000, 10, [3, 3, 4], ["in", "in", "in"]],
    [
      "the token budget stops the list: budget_tokens",
      1000,
      5,
      [3, 3, 1],
      ["in", "budget_tokens", "budget_tokens"],
    ],
    ["the character budget is weighed first: budget", 8, 5, [3, 3, 1], ["in", "budget", "budget"]],
    ["the top card always gets in, over both budgets", 1, 1, [9], ["in"]],
    [
      "a budget of 0 tokens sends none of the automatic half",
      1000,
      0,
      [2, 1],
      ["budget_tokens", "budget_tokens"],
    ],
    ["a budget of 0 characters sends none of the automatic half", 0, 10, [2, 1], ["budget", "budget"]],
  ])("%s", (_name, chars, tokens, sizes, expected) => {
    const out = budget(cards(sizes), { budget: chars, tokens: { budget: tokens, ...words }, framing });
    expect(outcome(out)).toEqual(expected);
  });

  test("the declared half (always-on cards, cards asked for) goes in whole and is never counted", () => {
    const sized = (key: string, via: Fired["via"]) => entry(key, { text: "x".repeat(6), via });
    const limits = { budget: 10, framing };
    const out = budget(
      [
        sized("A", "always"),
        sized("B", "named"),
        sized("C", "explicit"),
        sized("D", "named"),
        sized("E", "always"),
      ],
      limits,
    );
    expect(outcome(out)).toEqual(["in", "in", "in", "budget", "in"]);
    expect(outcome(budget([sized("A", "always"), sized("B", "named")], { budget: 0, framing }))).toEqual([
      "in",
      "budget",
    ]);
  });

  test("a card marked ignore_budget goes in without counting, wherever it stands", () => {
    const sized = (key: string, ignore: boolean) =>
      entry(key, { text: "x".repeat(6) }, { ignoreBudget: ignore });
    const limits = { budget: 10, framing };
    expect(outcome(budget([sized("A", true), sized("B", false), sized("C", false)], limits))).toEqual([
      "in",
      "in",
      "budget",
    ]);
    expect(outcome(budget([sized("A", false), sized("B", false), sized("C", true)], limits))).toEqual([
      "in",
      "budget",
      "in",
    ]);
  });

  test(`tokens are counted exactly with ${TOKEN_ENCODING}, and nothing is loaded without a token budget`, async () => {
    expect(await tokenBudget(undefined)).toBeUndefined();
    const count = await tokenCounter();
    expect(count("Hello world")).toBe(2);
    // Text that looks like a special token is plain text here, never an error.
    expect(count("a <|endoftext|> b")).toBeGreaterThan(3);
  });
});

describe("the tokenizer is loaded only for a token budget", () => {
  test("in a fresh process, a recall without one loads none of gpt-tokenizer; one with it does", async () => {
    vault = tempVault({ "people/Ann.md": cardText("keywords: [Ann]", "Ann.\n") });
    const script = `
      import { openEngine } from ${JSON.stringify(join(import.meta.dir, "../../src/recall/index.ts"))};
      const loaded = () => Object.keys(require.cache).filter((k) => k.includes("gpt-tokenizer")).length;
      const engine = await openEngine(${JSON.stringify(vault.root)}, { segmenter: false });
      const turns = [{ role: "user", text: "Ann" }];
      await engine.recall(turns);
      const before = loaded();
      await engine.recall(turns, { budgetTokens: 10 });
      console.log(JSON.stringify([before, loaded() > 0]));`;
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    expect(JSON.parse(out)).toEqual([0, true]);
  });
});

describe("through a recall", () => {
  const files = {
    "people/Now.md": cardText("keywords: [Nora]", `${"n".repeat(40)}\n`),
    "people/Earlier.md": cardText("keywords: [Edgar, Eddie]", `${"e".repeat(40)}\n`),
    "people/Ever.md": cardText("keywords: [Everett]\ncontext: always", `${"v".repeat(40)}\n`),
  };
  const turns = [user("Edgar and Eddie came"), assistant("ok"), user("and Nora?")];

  test("the budget keeps the card named now, drops the one named earlier, and never counts the always-on one", async () => {
    vault = tempVault(files);
    const engine = await openEngine(vault.root, { segmenter: false });
    const r = await engine.recall(turns, { budget: 60 });
    expect(firedCards(r).map((f) => [f.card.key, f.verdict, f.reason])).toEqual([
      ["Now", "chosen", undefined],
      ["Earlier", "left_out", "budget"],
      ["Ever", "chosen", undefined],
    ]);
    expect(recallJson(r).left_out).toEqual([
      { key: "Earlier", kind: "people", title: "Earlier", reason: "budget", chars: expect.any(Number) },
    ]);
  });

  test("--budget-tokens drops from the same end, as budget_tokens", async () => {
    vault = tempVault(files);
    const engine = await openEngine(vault.root, { segmenter: false });
    const r = await engine.recall(turns, { budgetTokens: 1 });
    expect(injectedKeys(r)).toEqual(["Now", "Ever"]);
    expect(leftOutCards(r).map((f) => [f.card.key, f.reason])).toEqual([["Earlier", "budget_tokens"]]);
  });

  test("a card with no public text is listed as left out (empty) but not counted as truncated", async () => {
    vault = tempVault({
      ...files,
      "people/Quiet.md": cardText("keywords: [Nora]", "## correspondence\nprivate only\n"),
    });
    const engine = await openEngine(vault.root, { segmenter: false });
    const json = recallJson(await engine.recall(turns, { budget: 10_000 }));
    expect(json.left_out.map((l) => [l.key, l.reason])).toEqual([["Quiet", "empty"]]);
    expect(json.truncated).toBe(0);
  });

  test("a budget of 0 sends the declared half alone", async () => {
    vault = tempVault(files);
    const engine = await openEngine(vault.root, { segmenter: false });
    const r = await engine.recall(turns, { budget: 0 });
    expect(injectedKeys(r)).toEqual(["Ever"]);
  });
});
