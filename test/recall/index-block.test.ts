import { afterEach, describe, expect, test } from "bun:test";
import { markersFromSecret } from "../../src/inject/index.ts";
import {
  chosenCards,
  contextText,
  injectedChars,
  injectedIds,
  injectedKeys,
  leftOutCards,
  lineChars,
  openEngine,
  type RecallOptions,
  type RecallResult,
  recallRecordOf,
} from "../../src/recall/index.ts";
import { indexLine, newQueryId, renderIndex } from "../../src/recall/stages/index-block.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let vault: TempVault | undefined;
afterEach(() => {
  vault?.remove();
  vault = undefined;
});

const user = (text: string) => ({ role: "user" as const, text });
const ids = { session: "hook:S1", query: "q0123456789ab" };

const files = {
  "people/Alice.md": cardText("keywords: [Alice, Ally]", "## who\nAlice runs payments.\n"),
  "places/Lyon.md": cardText("keywords: [Lyon]", `## where\n${"A city on the Rhône. ".repeat(80)}\n`),
  "things/rules.md": cardText("keywords: [house rules]\ncontext: always", "## what\nNo shoes inside.\n"),
};

/** A recall in index mode under `ids` (the surface's budget 800 unless given). */
async function recallOn(message: string, options: RecallOptions = {}): Promise<RecallResult> {
  vault ??= tempVault(files);
  const engine = await openEngine(vault.root, { segmenter: false });
  return engine.recall([user(message)], { budget: 800, index: ids, ...options });
}

describe("the index block", () => {
  test("a header naming the session and query, then one line per card: score | kind/key | words", async () => {
    const result = await recallOn("Ally and Alice flew to Lyon");
    expect(contextText(result)).toBe(
      "Memory index (session: hook:S1, query: q0123456789ab). Open a card with read_card(name, session, query).\n" +
        "score | card | words that fired it\n" +
        "4 | people/Alice | ally, alice\n" +
        "2 | place/Lyon | lyon\n" +
        "0 | thing/rules | (always on)\n",
    );
    expect(injectedIds(result)).toEqual(["people/Alice", "place/Lyon", "thing/rules"]);
    expect(result.blocks).toEqual([
      {
        tier: "volatile",
        at: null,
        cards: ["people/Alice", "place/Lyon", "thing/rules"],
        text: contextText(result),
      },
    ]);
  });

  test("a card's whole text costs nothing: a card far over the budget is listed in one line", async () => {
    const listed = await recallOn("Lyon");
    expect(chosenCards(listed).find((c) => c.id === "place/Lyon")!.chars).toBeGreaterThan(800);
    expect(injectedIds(listed)).toEqual(["place/Lyon", "thing/rules"]);
  });

  test("with markers the block is wrapped in them, exactly as a card block is", async () => {
    const markers = markersFromSecret("a".repeat(48));
    const result = await recallOn("Alice", { markers });
    expect(result.blocks[0]!.wrapped).toBe(
      `${markers.open}\n${contextText(result).trimEnd()}\n${markers.close}`,
    );
  });

  test("the budget counts characters of lines: the first always gets in, the first that overflows stops the list", async () => {
    const all = await recallOn("Alice in Lyon");
    const first = `${indexLine(chosenCards(all)[0]!)}\n`.length;
    const result = await recallOn("Alice in Lyon", { budget: first + 1 });
    expect(injectedIds(result)).toEqual(["people/Alice"]);
    expect(leftOutCards(result).map((c) => [c.id, c.reason])).toEqual([
      ["place/Lyon", "budget"],
      ["thing/rules", "budget"],
    ]);
    expect(leftOutCards(result).length).toBe(2);
    expect(injectedIds(await recallOn("Alice in Lyon", { budget: 1 }))).toEqual(["people/Alice"]);
  });

  test("a cap on the whole block drops lines from the end as surface_cap, keeping one", async () => {
    const all = await recallOn("Alice in Lyon");
    const two = renderIndex(ids, chosenCards(all).slice(0, 2)).length;
    const capped = await recallOn("Alice in Lyon", { maxContextChars: two });
    expect(injectedIds(capped)).toEqual(["people/Alice", "place/Lyon"]);
    expect(leftOutCards(capped).map((c) => [c.id, c.reason])).toEqual([["thing/rules", "surface_cap"]]);
    expect(injectedIds(await recallOn("Alice in Lyon", { maxContextChars: 10 }))).toEqual(["people/Alice"]);
  });

  test("the budget counts lines, so a budget too small for one card's text still lists several", async () => {
    const root = makeVault(); // the example cards
    vault = { root, write: () => root, remove: () => removeDir(root) };
    const words = "alice at the corner cafe after the friday deploy";
    expect(injectedKeys(await recallOn(words, { budget: 60, index: undefined }))).toHaveLength(1);
    expect(injectedKeys(await recallOn(words, { budget: 200 }))).toEqual([
      "the Friday deploy",
      "the corner cafe",
      "Alice",
    ]);
  });

  test("with tiers the stable block keeps its cards' text; the others are the index after it", async () => {
    const result = await recallOn("Alice", { tiers: true });
    expect(result.blocks.map((b) => [b.tier, b.cards])).toEqual([
      ["stable", ["thing/rules"]],
      ["volatile", ["people/Alice"]],
    ]);
    expect(result.blocks[0]!.text).toContain("No shoes inside.");
    const [alice, rules] = [chosenCards(result)[0]!, chosenCards(result)[1]!];
    expect(injectedChars(result)).toBe(rules.chars + lineChars(alice));
    expect(recallRecordOf(result, "gateway", 0)?.cards).toEqual(["people/Alice"]);
  });

  test("no card chosen, no block", async () => {
    vault = tempVault({ "people/Alice.md": files["people/Alice.md"] });
    const result = await recallOn("nothing here");
    expect([result.blocks, contextText(result), injectedKeys(result)]).toEqual([[], "", []]);
  });

  test("the same result and ids give the same bytes", async () => {
    expect(contextText(await recallOn("Alice in Lyon"))).toBe(contextText(await recallOn("Alice in Lyon")));
  });
});

describe("index lines", () => {
  test.each([
    ["always", "(always on)"],
    ["sticky", "(still sticky)"],
    ["explicit", "(asked for)"],
    ["reached", "(named in another card)"],
  ] as const)("a card that came in %s without words says %s", (via, words) => {
    expect(indexLine({ id: "a/x", score: 0, hits: [], via })).toBe(`0 | a/x | ${words}`);
  });

  test("line breaks, tabs and pipes never leave a line; more than eight words end in an ellipsis", () => {
    const hits = ["a|b", "c\nd", "e\tf", "4", "5", "6", "7", "8", "9"];
    expect(indexLine({ id: "k/x|y", score: 3, hits, via: "named" })).toBe(
      "3 | k/x y | a b, c d, e f, 4, 5, 6, 7, 8, …",
    );
    expect(renderIndex({ session: "s\n1", query: "q|2" }, [])).toStartWith(
      "Memory index (session: s 1, query: q 2).",
    );
  });

  test("query ids are q and twelve hex digits, a new one each time", () => {
    const made = new Set(Array.from({ length: 50 }, newQueryId));
    expect(made.size).toBe(50);
    for (const q of made) expect(q).toMatch(/^q[0-9a-f]{12}$/);
  });
});
