import { describe, expect, test } from "bun:test";
import { Matcher } from "../../src/match/matcher.ts";
import { card, fired } from "./_cards.ts";

describe("match terms are keywords, aliases and the title, case-insensitive", () => {
  test.each([
    ["a keyword", card("Alice", { keywords: ["payments team"] }), "she joined the Payments Team", true],
    ["an alias", card("Alice", { aliases: ["Al"] }), "al said hi", true],
    ["the title", card("Alice"), "ALICE is here", true],
    ["full Unicode folding: STRASSE finds Straße", card("Straße"), "we walked down the STRASSE", true],
    ["full Unicode folding the other way", card("STRASSE"), "die Straße", true],
    ["full-width letters", card("ABC"), "ＡＢＣ corp", true],
    ["Greek final sigma", card("ΟΔΟΣ"), "η οδος", true],
    ["no term present", card("Alice", { keywords: ["Alice"] }), "Bob is here", false],
  ])("%s", async (_name, c, text, expected) => {
    expect(await fired([c], [text])).toEqual(expected ? [c.key] : []);
  });
});

describe("terms of 2+ characters match as substrings, 1-character terms only as whole tokens", () => {
  test.each([
    ["2-char term inside a word", card("Al"), "Also", true],
    ["1-char term as a word", card("Q", { title: "Q" }), "ask Q about it", true],
    ["1-char term inside a word does not fire", card("Q"), "quick question", false],
    ["1-char term next to punctuation", card("Q"), "(Q)", true],
    ["1-char CJK term as a segmented word", card("猫"), "我的猫很可爱", true],
    ["1-char CJK term inside a longer word does not fire", card("京"), "北京大学很大", false],
    ["2-char CJK term as a substring", card("小明"), "小明在北京大学读书", true],
  ])("%s", async (_name, c, text, expected) => {
    expect(await fired([c], [text])).toEqual(expected ? [c.key] : []);
  });

  test("without a segmenter a 1-character CJK term does not fire inside unspaced text", async () => {
    expect(await fired([card("猫")], ["我的猫很可爱"], 3, false)).toEqual([]);
    expect(await fired([card("猫")], ["猫 很可爱"], 3, false)).toEqual(["猫"]);
  });
});

describe("the window is the current message plus scan_depth turns of two messages", () => {
  // Messages oldest first; the last one is current. "Alice" sits k messages back.
  const history = (back: number) => {
    const msgs = Array.from({ length: back + 1 }, (_, i) => `filler ${i}`);
    msgs[msgs.length - 1 - back] = "Alice";
    return msgs;
  };
  test.each([
    [0, 0, true],
    [0, 1, false],
    [1, 2, true],
    [1, 3, false],
    [3, 6, true],
    [3, 7, false],
  ])("scan depth %i sees a message %i back: %p", async (depth, back, expected) => {
    expect(await fired([card("Alice")], history(back), depth)).toEqual(expected ? ["Alice"] : []);
  });

  test("a card's own scan_depth overrides the caller's", async () => {
    const deep = card("Alice", { scanDepth: 5 });
    const shallow = card("Bob", { scanDepth: 0 });
    const msgs = ["Alice and Bob", "x", "x", "x", "x", "x", "x", "x", "x", "now"];
    expect(await fired([deep, shallow], msgs, 1)).toEqual(["Alice"]);
  });
});

describe("secondary conditions", () => {
  test.each([
    ["all: every word in the window", { all: ["cafe", "friday"] }, ["at the cafe", "Alice on friday"], true],
    ["all: one missing vetoes", { all: ["cafe", "friday"] }, ["Alice on friday"], false],
    ["any: one word is enough", { any: ["cafe", "park"] }, ["park", "Alice"], true],
    ["any: none vetoes", { any: ["cafe", "park"] }, ["Alice"], false],
    ["not: in the hit message vetoes", { not: ["Cooper"] }, ["Alice Cooper sings"], false],
    ["not: elsewhere in the window does not veto", { not: ["Cooper"] }, ["Cooper sings", "x", "Alice"], true],
  ])("%s", async (_name, secondary, messages, expected) => {
    const c = card("Alice", { secondary: { all: [], any: [], not: [], notAll: [], ...secondary } });
    expect(await fired([c], messages)).toEqual(expected ? ["Alice"] : []);
  });
});

describe("score and order", () => {
  test("score is distinct terms hit plus one per term hit in the current message", async () => {
    const c = card("Alice", { keywords: ["payments"], aliases: ["Al"] });
    const matcher = new Matcher([c]);
    const [m] = await matcher.match(["Alice from payments", "alice again"], { scanDepth: 3 });
    // distinct: alice, payments, al (inside "alice") = 3; current message: alice, al = 2.
    expect(m?.score).toBe(5);
    expect(m?.hits.sort()).toEqual(["al", "alice", "payments"]);
  });

  test("order is score descending, then priority descending, then title", async () => {
    const cards = [
      card("Zed", { keywords: ["cafe"] }),
      card("Amy", { keywords: ["cafe"] }),
      card("Low", { keywords: ["cafe"], priority: -1 }),
      card("High", { keywords: ["cafe"], priority: 5 }),
      card("Top", { keywords: ["cafe", "friday"] }),
    ];
    expect(await fired(cards, ["the cafe on friday"])).toEqual(["Top", "High", "Amy", "Zed", "Low"]);
  });

  test("inject: false never fires automatically", async () => {
    expect(await fired([card("Alice", { inject: false })], ["Alice"])).toEqual([]);
  });
});

describe("the automaton", () => {
  test("overlapping and nested terms are all found", async () => {
    const cards = [card("he"), card("she"), card("his"), card("hers")];
    expect((await fired(cards, ["ushers"])).sort()).toEqual(["he", "hers", "she"]);
  });

  test("thousands of cards share one automaton and each still fires alone", async () => {
    const cards = Array.from({ length: 5000 }, (_, i) => card(`Person${i}x`));
    expect(await fired(cards, ["I met Person4321x and Person17x"])).toEqual(["Person17x", "Person4321x"]);
  });
});
