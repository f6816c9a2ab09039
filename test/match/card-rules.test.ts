import { describe, expect, test } from "bun:test";
import { Matcher } from "../../src/match/matcher.ts";
import { card, fired } from "./_cards.ts";

describe("case_sensitive: a term counts only as written in the message", () => {
  test.each([
    ["the exact case fires", card("Apple", {}, { caseSensitive: true }), "I like Apple", true],
    ["another case does not", card("Apple", {}, { caseSensitive: true }), "apple pie", false],
    [
      "a keyword keeps its own case",
      card("Fruit", { keywords: ["iPhone"] }, { caseSensitive: true }),
      "IPHONE",
      false,
    ],
    [
      "…and fires as written",
      card("Fruit", { keywords: ["iPhone"] }, { caseSensitive: true }),
      "my iPhone",
      true,
    ],
    [
      "a one-character term still needs a whole token",
      card("Q", {}, { caseSensitive: true }),
      "Quick",
      false,
    ],
    ["…and its case", card("Q", {}, { caseSensitive: true }), "ask q", false],
    ["…both met", card("Q", {}, { caseSensitive: true }), "ask Q", true],
    ["without the rule any case fires", card("Apple"), "apple pie", true],
  ])("%s", async (_name, c, text, expected) => {
    expect(await fired([c], [text])).toEqual(expected ? [c.key] : []);
  });

  test("two cards sharing a folded term each follow their own case rule", async () => {
    const strict = card("Strict", { title: "s1", keywords: ["Apple"] }, { caseSensitive: true });
    const loose = card("Loose", { title: "s2", keywords: ["APPLE"] });
    expect(await fired([strict, loose], ["an apple"])).toEqual(["Loose"]);
    expect((await fired([strict, loose], ["an Apple"])).sort()).toEqual(["Loose", "Strict"]);
  });
});

describe("whole_words per card", () => {
  const cat = (wholeWords: boolean | null) => card("cat", {}, { wholeWords });
  test.each([
    ["unset: a longer term is a substring (cat in category)", cat(null), "a category", true],
    ["true: cat is not in category", cat(true), "a category", false],
    ["true: cat between punctuation", cat(true), "the cat, waits", true],
    ["false: cat in category", cat(false), "a category", true],
    ["unset: a one-character term needs a whole token", card("Q", {}, { wholeWords: null }), "quick", false],
    ["false: even one character is a substring", card("Q", {}, { wholeWords: false }), "quick", true],
    [
      "false: 玲 fires in 玲在哪里？ (jieba cuts 玲在 as one word)",
      card("玲", {}, { wholeWords: false }),
      "玲在哪里？",
      true,
    ],
    ["unset: 玲 does not fire in 玲在哪里？", card("玲", {}, { wholeWords: null }), "玲在哪里？", false],
    ["unset: 北京 is a substring of 北京大学", card("北京", {}, { wholeWords: null }), "北京大学很大", true],
    [
      "unset: 菲 is not a whole token of 菲去 (jieba)",
      card("菲", {}, { wholeWords: null }),
      "菲去了市场。",
      false,
    ],
    // true is SillyTavern's rule: only ASCII letters, digits and _ are word characters.
    [
      "true: Han neighbours are no word characters",
      card("北京", {}, { wholeWords: true }),
      "北京大学很大",
      true,
    ],
    ["true: 菲 fires in 菲去了市场。", card("菲", {}, { wholeWords: true }), "菲去了市场。", true],
    [
      "true: an accented letter is no word character either",
      card("caf", {}, { wholeWords: true }),
      "café",
      true,
    ],
    ["true: an ASCII letter next to it still stops it", card("猫", {}, { wholeWords: true }), "猫s", false],
    [
      "true: a term of several words matches as written (SillyTavern)",
      card("black cat", {}, { wholeWords: true }),
      "two black cats",
      true,
    ],
    [
      "true and case_sensitive: whole word in the raw text",
      card("Cat", {}, { wholeWords: true, caseSensitive: true }),
      "Category",
      false,
    ],
  ])("%s", async (_name, c, text, expected) => {
    expect(await fired([c], [text])).toEqual(expected ? [c.key] : []);
  });

  test("false needs no segmenter for Han text", async () => {
    expect(await fired([card("玲", {}, { wholeWords: false })], ["玲在哪里？"], 3, false)).toEqual(["玲"]);
  });

  test("cards sharing a one-character term each apply their own rule", async () => {
    const strict = card("Strict", { title: "x1", keywords: ["玲"] });
    const loose = card("Loose", { title: "x2", keywords: ["玲"] }, { wholeWords: false });
    expect(await fired([strict, loose], ["玲在哪里？"])).toEqual(["Loose"]);
  });
});

describe("scan_messages: the card's window in messages, the current one included", () => {
  // Messages oldest first; the last one is current. "Alice" sits `back` messages back.
  const history = (back: number) => {
    const msgs = Array.from({ length: back + 1 }, (_, i) => `filler ${i}`);
    msgs[msgs.length - 1 - back] = "Alice";
    return msgs;
  };
  test.each([
    [1, 0, true],
    [1, 1, false],
    [2, 1, true],
    [2, 2, false],
    [0, 0, false],
    [10, 9, true],
    [10, 10, false],
  ])("scan_messages %i sees a message %i back: %p", async (scanMessages, back, expected) => {
    const c = card("Alice", {}, { scanMessages });
    expect(await fired([c], history(back), 1)).toEqual(expected ? ["Alice"] : []);
  });

  test("scan_messages wins over scan_depth", async () => {
    const c = card("Alice", { scanDepth: 5 }, { scanMessages: 1 });
    expect(await fired([c], ["Alice", "now"])).toEqual([]);
  });

  test("the window read is deep enough for the card that asks for most messages", () => {
    expect(new Matcher([card("A", {}, { scanMessages: 10 })]).table.maxDepth).toBe(5);
    expect(
      new Matcher([card("A", {}, { scanMessages: 0 }), card("B", { scanDepth: 2 })]).table.maxDepth,
    ).toBe(2);
  });
});
