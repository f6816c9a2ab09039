// What reach reads in a card's prose (seed 004: names noticed in prose): whole words there, segmented
// inside Chinese and Japanese text, while the person's own words keep the substring rule; a card's own
// `whole_words` holds in both; the prose read is the text the card sends, macros read.
import { describe, expect, test } from "bun:test";
import { jiebaSegmenter } from "../../src/match/index.ts";
import { chosenCards, openEngine } from "../../src/recall/index.ts";
import { cardText, tempVault } from "../support/card-vault.ts";
import { chosen, lorebook, person, verdicts } from "./_lorebook.ts";

/** The original tool's example: Alice (alias Al), Bob, and the Friday deploy that names Bob. */
const ORIGINAL = [
  person("Alice", "keywords: [Alice, payments team]\naliases: [Al]", "Alice works on the payments team.\n"),
  person("Bob", "keywords: [Bob]", "Bob is on call for releases.\n"),
  [
    "events/the Friday deploy.md",
    cardText("keywords: [Friday deploy]\nrefs: [Bob]", "The weekly release goes out.\n"),
  ] as [string, string],
];

describe("reach reads prose by whole words", () => {
  test("a short alias is not found inside a word of another card's text ('Al' in 'call')", async () => {
    const book = await lorebook(ORIGINAL);
    expect(verdicts(await book.recall(["Bob?"]))).toEqual(["Bob chosen named"]);
  });

  test("the person's own words keep the substring rule ('Al' in 'wallaby')", async () => {
    const book = await lorebook(ORIGINAL);
    expect(chosen(await book.recall(["a wallaby"]))).toEqual(["Alice"]);
  });

  test("a whole word in prose still reaches", async () => {
    const book = await lorebook([...ORIGINAL, person("Cy", "keywords: [Cy]", "Cy asked Al about it.\n")]);
    expect(verdicts(await book.recall(["Cy?"]))).toEqual(["Cy chosen named", "Alice chosen reached"]);
  });

  test("the original tool's cases: refs add a line, and nothing else comes in", async () => {
    const book = await lorebook(ORIGINAL);
    const deploy = await book.recall(["how did the Friday deploy go"], { budget: 9999 });
    expect(chosen(deploy)).toEqual(["the Friday deploy"]);
    expect(chosenCards(deploy)[0]!.text).toContain("see also: Bob — Bob is on call for releases.");
    const both = await book.recall(["Friday deploy with Bob"], { budget: 9999 });
    expect(chosen(both).sort()).toEqual(["Bob", "the Friday deploy"]);
    expect(chosenCards(both).find((c) => c.card.key === "the Friday deploy")!.text).not.toContain("see also");
    const budget1 = await book.recall(["Alice and Bob"], { budget: 1 });
    expect(budget1.selection.map((e) => e.verdict)).toEqual(["chosen", "left_out"]);
  });

  test("a card's own whole_words: false keeps substrings in prose too", async () => {
    const book = await lorebook([
      person("Pen", "keywords: [Pen]\nwhole_words: false", "A pen.\n"),
      person("Dora", "keywords: [Dora]", "Dora spent it all.\n"),
    ]);
    expect(verdicts(await book.recall(["Dora"]))).toEqual(["Dora chosen named", "Pen chosen reached"]);
  });

  test("Chinese prose is segmented: a name reaches as a word, not inside another word", async () => {
    const vault = tempVault({
      "people/北京.md": cardText("keywords: [北京]", "首都。\n"),
      "people/小明.md": cardText("keywords: [小明]", "小明在北京大学读书。\n"),
      "people/小红.md": cardText("keywords: [小红]", "小红住在北京。\n"),
    });
    try {
      const engine = await openEngine(vault.root, { segmenter: jiebaSegmenter });
      const keys = async (text: string) =>
        chosenCards(await engine.recall([{ role: "user", text }])).map((c) => c.card.key);
      expect(await keys("小明呢？")).toEqual(["小明"]);
      expect(await keys("小红呢？")).toEqual(["小红", "北京"]);
    } finally {
      vault.remove();
    }
  });
});

describe("a card's prose is read anew when the card changes", () => {
  test("turn after turn the same prose reaches the same cards; once edited, what it names now", async () => {
    const vault = tempVault({
      "people/Ann.md": cardText("keywords: [Ann]", "Ann works with Ben.\n"),
      "people/Ben.md": cardText("keywords: [Ben]", "Ben.\n"),
      "people/Cy.md": cardText("keywords: [Cy]", "Cy.\n"),
    });
    try {
      const engine = await openEngine(vault.root, { segmenter: jiebaSegmenter });
      const keys = async () =>
        chosenCards(await engine.recall([{ role: "user", text: "Ann?" }])).map((c) => c.card.key);
      for (let turn = 0; turn < 3; turn++) expect(await keys()).toEqual(["Ann", "Ben"]);
      vault.write("people/Ann.md", cardText("keywords: [Ann]", "Ann now works with Cy, far away.\n"));
      expect(await keys()).toEqual(["Ann", "Cy"]);
    } finally {
      vault.remove();
    }
  });
});

describe("what reach reads of a card's macros", () => {
  test("a {{comment}} is not read and a {{hidden_key}} is", async () => {
    const book = await lorebook([
      person("Ann", "keywords: [Ann]", "Ann {{comment: ask Ben}} waits.{{hidden_key: Cy}}\n"),
      person("Ben", "keywords: [Ben]", "Ben.\n"),
      person("Cy", "keywords: [Cy]", "Cy.\n"),
    ]);
    expect(verdicts(await book.recall(["Ann"]))).toEqual(["Ann chosen named", "Cy chosen reached"]);
  });
});
