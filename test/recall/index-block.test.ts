import { afterEach, describe, expect, test } from "bun:test";
import { markersFromSecret } from "../../src/inject/index.ts";
import { openEngine, type RecallResult } from "../../src/recall/index.ts";
import {
  INDEX_RECALL,
  indexLine,
  indexResult,
  newQueryId,
  renderIndex,
} from "../../src/recall/index-block.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let vault: TempVault | undefined;
afterEach(() => vault?.remove());

const user = (text: string) => ({ role: "user" as const, text });
const ids = { session: "hook:S1", query: "q0123456789ab" };

const files = {
  "people/Alice.md": cardText("keywords: [Alice, Ally]", "## who\nAlice runs payments.\n"),
  "places/Lyon.md": cardText("keywords: [Lyon]", `## where\n${"A city on the Rhône. ".repeat(80)}\n`),
  "things/rules.md": cardText("keywords: [house rules]\ncontext: always", "## what\nNo shoes inside.\n"),
};

async function recallOn(message: string): Promise<RecallResult> {
  vault = tempVault(files);
  const engine = await openEngine(vault.root, { segmenter: false });
  return engine.recall([user(message)], INDEX_RECALL);
}

describe("the index block", () => {
  test("a header naming the session and query, then one line per card: score | kind/key | words", async () => {
    const result = indexResult(await recallOn("Ally and Alice flew to Lyon"), { ...ids, budget: 800 });
    expect(result.context).toBe(
      "Memory index (session: hook:S1, query: q0123456789ab). Open a card with read_card(name, session, query).\n" +
        "score | card | words that fired it\n" +
        "4 | people/Alice | ally, alice\n" +
        "2 | place/Lyon | lyon\n" +
        "0 | thing/rules | (always on)\n",
    );
    expect(result.injectedIds).toEqual(["people/Alice", "place/Lyon", "thing/rules"]);
    expect(result.blocks).toEqual([
      {
        tier: "volatile",
        at: null,
        cards: ["people/Alice", "place/Lyon", "thing/rules"],
        text: result.context,
      },
    ]);
  });

  test("a card's whole text costs nothing: a card far over the budget is listed in one line", async () => {
    const plain = await recallOn("Lyon");
    expect(plain.chosen.find((c) => c.id === "place/Lyon")!.chars).toBeGreaterThan(800);
    expect(indexResult(plain, { ...ids, budget: 800 }).injectedIds).toEqual(["place/Lyon", "thing/rules"]);
  });

  test("with markers the block is wrapped in them, exactly as a card block is", async () => {
    const markers = markersFromSecret("a".repeat(48));
    const result = indexResult(await recallOn("Alice"), { ...ids, budget: 800, markers });
    expect(result.blocks[0]!.wrapped).toBe(`${markers.open}\n${result.context.trimEnd()}\n${markers.close}`);
  });

  test("the budget counts characters of lines: the first always gets in, the first that overflows stops the list", async () => {
    const all = await recallOn("Alice in Lyon");
    const first = `${indexLine(all.chosen[0]!)}\n`.length;
    const result = indexResult(all, { ...ids, budget: first + 1 });
    expect(result.injectedIds).toEqual(["people/Alice"]);
    expect(result.leftOut.map((c) => [c.id, c.reason])).toEqual([
      ["place/Lyon", "budget"],
      ["thing/rules", "budget"],
    ]);
    expect(result.truncated).toBe(2);
    expect(indexResult(all, { ...ids, budget: 1 }).injectedIds).toEqual(["people/Alice"]);
  });

  test("a cap on the whole block drops lines from the end as surface_cap, keeping one", async () => {
    const all = await recallOn("Alice in Lyon");
    const two = renderIndex(ids, all.chosen.slice(0, 2)).length;
    const capped = indexResult(all, { ...ids, budget: 800, maxChars: two });
    expect(capped.injectedIds).toEqual(["people/Alice", "place/Lyon"]);
    expect(capped.leftOut.map((c) => [c.id, c.reason])).toEqual([["thing/rules", "surface_cap"]]);
    expect(indexResult(all, { ...ids, budget: 800, maxChars: 10 }).injectedIds).toEqual(["people/Alice"]);
  });

  test("no card chosen, no block", async () => {
    vault = tempVault({ "people/Alice.md": files["people/Alice.md"] });
    const engine = await openEngine(vault.root, { segmenter: false });
    const result = indexResult(await engine.recall([user("nothing here")], INDEX_RECALL), {
      ...ids,
      budget: 800,
    });
    expect([result.blocks, result.context, result.injected]).toEqual([[], "", []]);
  });

  test("the same result and ids give the same bytes", async () => {
    const result = await recallOn("Alice in Lyon");
    expect(indexResult(result, { ...ids, budget: 800 }).context).toBe(
      indexResult(result, { ...ids, budget: 800 }).context,
    );
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
