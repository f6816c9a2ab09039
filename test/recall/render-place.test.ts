// Where chosen cards go and what the model reads of them: each card's own placement reported, the
// insertion order inside the one block, "see also" lines that never leak a card not meant to be shown,
// and no card sent as a bare heading.
import { afterEach, describe, expect, test } from "bun:test";
import { recallJson } from "../../src/explain/index.ts";
import { contextText, firedCards, openEngine } from "../../src/recall/index.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";

let vault: TempVault | undefined;
afterEach(() => vault?.remove());

const user = (text: string) => ({ role: "user" as const, text });

async function recallOn(files: Record<string, string>, message: string, opts = {}) {
  vault = tempVault(files);
  const engine = await openEngine(vault.root, { segmenter: false });
  return engine.recall([user(message)], opts);
}

describe("placement", () => {
  test("each fired card reports its own position, depth and role; every chosen card is in the one block", async () => {
    const r = await recallOn(
      {
        "people/Deep.md": cardText("keywords: [Deep]\nposition: at_depth\ndepth: 2\nrole: system", "deep\n"),
        "people/Plain.md": cardText("keywords: [Plain]", "plain\n"),
      },
      "Deep and Plain",
    );
    const json = recallJson(r);
    expect(json.fired.map((f) => [f.key, f.placement])).toEqual([
      ["Deep", { position: "at_depth", depth: 2, role: "system" }],
      ["Plain", { position: null, depth: null, role: null }],
    ]);
    expect(r.blocks.map((b) => [b.tier, b.cards])).toEqual([["volatile", ["people/Deep", "people/Plain"]]]);
  });

  test("inside the block, cards with an insertion order come first, lowest first; the others follow in budget order", async () => {
    const r = await recallOn(
      {
        "people/Ann.md": cardText("keywords: [Ann]\norder: 10", "a\n"),
        "people/Bea.md": cardText("keywords: [Bea]\npriority: 2", "b\n"),
        "people/Cyd.md": cardText("keywords: [Cyd]\norder: 1", "c\n"),
        "people/Dot.md": cardText("keywords: [Dot]\npriority: 1", "d\n"),
      },
      "Ann Bea Cyd Dot",
    );
    expect(firedCards(r).map((f) => f.card.key)).toEqual(["Bea", "Dot", "Ann", "Cyd"]);
    expect(r.blocks[0]!.cards).toEqual(["people/Cyd", "people/Ann", "people/Bea", "people/Dot"]);
    expect(contextText(r).match(/^### \w+/gm)).toEqual(["### Cyd", "### Ann", "### Bea", "### Dot"]);
  });
});

describe("see also lines", () => {
  test.each([
    ["inject: false", "inject: false", false],
    ["context: manual", "context: manual", false],
    ["context: never", "context: never", false],
    ["context: automatic", "context: automatic", true],
    ["no context given", "", true],
  ])("a ref to a card with %s: its first line in the prompt is %p", async (_name, rule, shown) => {
    const r = await recallOn(
      {
        "people/Alice.md": cardText("keywords: [Alice]\nrefs: [Hidden]", "Alice runs payments.\n"),
        "people/Hidden.md": cardText(`keywords: [Zork]\n${rule}`, "The vault code is 0451.\n"),
      },
      "Alice",
    );
    expect(contextText(r).includes("0451")).toBe(shown);
    expect(contextText(r).includes("see also: Hidden")).toBe(shown);
  });
});

describe("a card with nothing public to say is never sent as a bare heading", () => {
  test.each([
    ["an empty body", ""],
    ["only private sections", "## correspondence\nA secret letter.\n"],
    ["only a comment macro", "{{// a note to myself}}\n"],
  ])("%s: left out as empty, and the other cards still go in", async (_name, body) => {
    const r = await recallOn(
      {
        "people/Blank.md": cardText("keywords: [Blank]\npriority: 9", body),
        "people/Full.md": cardText("keywords: [Full]", "Full has words.\n"),
      },
      "Blank and Full",
    );
    expect(firedCards(r).map((f) => [f.card.key, f.verdict, f.reason])).toEqual([
      ["Blank", "left_out", "empty"],
      ["Full", "chosen", undefined],
    ]);
    expect(contextText(r)).not.toContain("### Blank");
    expect(recallJson(r).left_out.map((l) => [l.key, l.reason])).toEqual([["Blank", "empty"]]);
  });
});
