import { afterEach, describe, expect, test } from "bun:test";
import {
  contextText,
  firedCards,
  injectedChars,
  injectedKeys,
  leftOutCards,
  openEngine,
} from "../../src/recall/index.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";
import { until } from "../support/wait.ts";

let vault: TempVault | undefined;
afterEach(() => vault?.remove());

const user = (text: string) => ({ role: "user" as const, text });

async function recallOn(files: Record<string, string>, messages: string[], opts = {}) {
  vault = tempVault(files);
  const engine = await openEngine(vault.root, { segmenter: false });
  return engine.recall(messages.map(user), opts);
}

const alice = cardText(
  "keywords: [Alice]\nrefs: [Bob]",
  "## who\nAlice runs payments.\n\n## correspondence\nDraft letter mentions Zanzibar.\n",
);
const bob = cardText("keywords: [Bob]", "## who\nBob keeps bees.\n");

describe("rendering", () => {
  test("a card renders as its title and kind, its public text, and a see-also line per ref", async () => {
    const r = await recallOn({ "people/Alice.md": alice, "people/Bob.md": bob }, ["hi Alice"]);
    expect(contextText(r)).toBe(
      "A memory surfaces:\n\n### Alice [people]\n## who\nAlice runs payments.\nsee also: Bob — Bob keeps bees.\n",
    );
  });

  test("a ref adds nothing when its target fired itself", async () => {
    const r = await recallOn({ "people/Alice.md": alice, "people/Bob.md": bob }, ["Alice and Bob"]);
    expect(injectedKeys(r)).toEqual(["Alice", "Bob"]);
    expect(contextText(r)).not.toContain("see also");
  });

  test("rendering is byte-stable across engines for the same card version", async () => {
    const first = await recallOn({ "people/Alice.md": alice }, ["Alice"]);
    const again = await (await openEngine(vault!.root, { segmenter: false })).recall([user("Alice")]);
    expect(contextText(again)).toBe(contextText(first));
  });
});

describe("private sections", () => {
  test("words in a private section never make a card fire", async () => {
    const r = await recallOn({ "people/Alice.md": alice }, ["Zanzibar"]);
    expect(firedCards(r)).toEqual([]);
  });

  test("a private section is never injected", async () => {
    const r = await recallOn({ "people/Alice.md": alice }, ["Alice"]);
    expect(contextText(r)).not.toContain("Zanzibar");
    expect(contextText(r)).not.toContain("correspondence");
  });
});

describe("enabled and inject", () => {
  test("enabled: false is never loaded", async () => {
    const r = await recallOn({ "people/Alice.md": cardText("enabled: no", "x") }, ["Alice"]);
    expect(firedCards(r)).toEqual([]);
  });

  test("inject: false does not fire automatically", async () => {
    const r = await recallOn({ "people/Alice.md": cardText("inject: off", "x") }, ["Alice"]);
    expect(firedCards(r)).toEqual([]);
  });
});

describe("the budget", () => {
  const big = (name: string, size: number) => cardText(`keywords: [${name}]`, `${"x".repeat(size)}\n`);

  test("the top card always gets in, even over budget", async () => {
    const r = await recallOn({ "people/Ann.md": big("Ann", 2000) }, ["Ann"], { budget: 100 });
    expect(injectedKeys(r)).toEqual(["Ann"]);
    expect(leftOutCards(r).length).toBe(0);
  });

  test("the first card that would overflow stops the list; the rest are truncated", async () => {
    const files = {
      "people/Ann.md": cardText("keywords: [Ann, cafe]", "short\n"),
      "people/Ben.md": big("Ben", 900),
      "people/Cy.md": cardText("keywords: [Cy]", "tiny\n"),
    };
    const r = await recallOn(files, ["Ann at the cafe with Ben and Cy"], { budget: 800 });
    expect(firedCards(r).map((f) => f.card.key)).toEqual(["Ann", "Ben", "Cy"]);
    expect(injectedKeys(r)).toEqual(["Ann"]);
    expect(leftOutCards(r).length).toBe(2);
    expect(firedCards(r).map((f) => f.verdict === "chosen")).toEqual([true, false, false]);
    expect(injectedChars(r)).toBe(firedCards(r)[0]!.chars!);
  });

  test("cards already in context are set aside before the budget and never starve new cards", async () => {
    const files = { "people/Ben.md": big("Ben", 700), "people/Cy.md": big("Cy", 700) };
    const r = await recallOn(files, ["Ben and Cy"], { budget: 800, inContext: new Set(["people/Ben"]) });
    expect(injectedKeys(r)).toEqual(["Cy"]);
    expect(leftOutCards(r).length).toBe(0);
    expect(firedCards(r).find((f) => f.card.key === "Ben")?.verdict === "in_context").toBe(true);
  });
});

describe("the engine follows the vault", () => {
  test("an edit is seen on the next lookup", async () => {
    vault = tempVault({ "people/Alice.md": cardText("keywords: [Alice]", "old\n") });
    const engine = await openEngine(vault.root, { segmenter: false });
    expect(contextText(await engine.recall([user("Alice")]))).toContain("old");
    vault.write("people/Alice.md", cardText("keywords: [Alice, Ally]", "new text\n"));
    const r = await engine.recall([user("Ally")]);
    expect(contextText(r)).toContain("new text");
  });

  test("a long-running engine (watch mode) sees a card added by another program", async () => {
    vault = tempVault({ "people/Alice.md": cardText("keywords: [Alice]", "x\n") });
    const engine = await openEngine(vault.root, { segmenter: false, watch: true, recheckMs: 60_000 });
    try {
      expect(injectedKeys(await engine.recall([user("Bob")]))).toEqual([]);
      vault.write("people/Bob.md", cardText("keywords: [Bob]", "y\n"));
      await until(
        async () => injectedKeys(await engine.recall([user("Bob")])).length > 0,
        "the watch to see Bob",
      );
      expect(injectedKeys(await engine.recall([user("Bob")]))).toEqual(["Bob"]);
    } finally {
      engine.close();
    }
  });

  test("a broken card is skipped and the others still fire", async () => {
    vault = tempVault({ "people/Alice.md": alice, "people/Bad.md": "---\nkeywords: [unclosed\n---\nbody" });
    const engine = await openEngine(vault.root, { segmenter: false });
    expect(injectedKeys(await engine.recall([user("Alice and Bad")]))).toContain("Alice");
  });
});

describe("candidates", () => {
  test("capitalised names no card covers are offered, covered ones are not", async () => {
    const r = await recallOn({ "people/Alice.md": alice }, [
      "Yesterday Alice met Marguerite at Lantern Park.",
    ]);
    expect(r.candidates.names).toContain("Marguerite");
    expect(r.candidates.places).toContain("Lantern Park");
    expect([...r.candidates.names, ...r.candidates.places]).not.toContain("Alice");
  });

  test("the start of a card's title is offered as an alias", async () => {
    const r = await recallOn({ "people/Alexandra.md": cardText("keywords: [Alexandra]", "x\n") }, [
      "I saw Alex today",
    ]);
    expect(r.candidates.aliases).toEqual(["Alex"]);
  });
});
