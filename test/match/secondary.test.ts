import { describe, expect, test } from "bun:test";
import type { CardRules, Secondary } from "../../src/card/types.ts";
import { Matcher } from "../../src/match/matcher.ts";
import { type Veto, vetoOf, type WordStop } from "../../src/match/secondary.ts";
import { card, fired } from "./_cards.ts";

/** A card fired by "magic", with these secondary words and rules. */
function magic(secondary: Partial<Secondary>, rules?: Partial<CardRules>) {
  return card(
    "Magic",
    { title: "zzz", keywords: ["magic"], secondary: { all: [], any: [], not: [], notAll: [], ...secondary } },
    rules,
  );
}

describe("NOT ALL: vetoed only when every word is in the card's window", () => {
  test.each([
    ["one of two present fires", ["magic fire"], true],
    ["none present fires", ["magic"], true],
    ["all present vetoes", ["magic fire ice"], false],
    [
      "all present across the window vetoes (SillyTavern checks the whole window)",
      ["ice", "magic fire"],
      false,
    ],
    ["a word outside the card's window does not count", ["ice", "x", "x", "x", "magic fire"], true],
  ])("%s", async (_name, messages, expected) => {
    const c = magic({ notAll: ["fire", "ice"] }, { scanMessages: 3 });
    expect(await fired([c], messages)).toEqual(expected ? ["Magic"] : []);
  });
});

describe("@@additional_keys: each group needs one of its words in the window", () => {
  const c = magic({}, { additionalKeys: [["sword", "blade"], ["night"]] });
  test.each([
    ["both groups met", ["magic sword at night"], true],
    ["met across the window", ["at night", "magic blade"], true],
    ["one group missing vetoes", ["magic sword"], false],
    ["the other group missing vetoes", ["magic at night"], false],
  ])("%s", async (_name, messages, expected) => {
    expect(await fired([c], messages)).toEqual(expected ? ["Magic"] : []);
  });
});

describe("@@exclude_keys: none of its words in the window", () => {
  test.each([
    ["absent fires", magic({}, { excludeKeys: ["peace"] }), ["magic"], true],
    ["in the hit message vetoes", magic({}, { excludeKeys: ["peace"] }), ["magic in peace"], false],
    ["elsewhere in the window vetoes", magic({}, { excludeKeys: ["peace"] }), ["peace", "magic"], false],
    [
      "ignored on a regex card (card spec)",
      magic({}, { excludeKeys: ["peace"], regex: true }),
      ["magic peace"],
      true,
    ],
  ])("%s", async (_name, c, messages, expected) => {
    expect(await fired([c], messages)).toEqual(expected ? ["Magic"] : []);
  });
});

describe("secondary words follow the card's own word rules", () => {
  test.each([
    ["a /regex/ secondary word", magic({ all: ["/fir(e|st)/"] }), "magic first", true],
    ["…that does not match vetoes", magic({ all: ["/fir(e|st)/"] }), "magic fir", false],
    ["an invalid pattern never occurs", magic({ any: ["/[x/"] }), "magic [x /[x/", false],
    ["case_sensitive words", magic({ all: ["Paris"] }, { caseSensitive: true }), "magic paris", false],
    ["…written as they are", magic({ all: ["Paris"] }, { caseSensitive: true }), "magic Paris", true],
    [
      "whole_words true: not inside a word",
      magic({ any: ["cat"] }, { wholeWords: true }),
      "magic category",
      false,
    ],
    [
      "whole_words false: one character inside Han text",
      magic({ all: ["玲"] }, { wholeWords: false }),
      "magic 玲在",
      true,
    ],
    [
      "regex: true ignores the secondary words, as the card spec does for use_regex (§8.2.2)",
      magic({ all: ["fi.e"], not: ["magic"] }, { regex: true }),
      "magic",
      true,
    ],
    ["the not list still looks only at hit messages", magic({ not: ["Cooper"] }), "magic", true],
  ])("%s", async (_name, c, text, expected) => {
    expect(await fired([c], ["Cooper was here", text])).toEqual(expected ? ["Magic"] : []);
  });
});

describe("the veto names the word rule that stopped the card, the first in the gate's order", () => {
  const hit = (text: string) => [{ raw: text, folded: text.toLowerCase() }];
  test.each<[string, Partial<Secondary>, Partial<CardRules>, string, WordStop]>([
    [
      "all: the one word missing",
      { all: ["sword", "night"] },
      {},
      "magic sword",
      { rule: "all", words: ["night"] },
    ],
    [
      "any: none of its words",
      { any: ["sword", "blade"] },
      {},
      "magic",
      { rule: "any", words: ["sword", "blade"] },
    ],
    [
      "not: the word in a message that named it",
      { not: ["peace", "war"] },
      {},
      "magic war",
      { rule: "not", words: ["war"] },
    ],
    [
      "not_all: all of its words",
      { notAll: ["fire", "ice"] },
      {},
      "magic fire ice",
      { rule: "not_all", words: ["fire", "ice"] },
    ],
    [
      "@@additional_keys: the line with none of its words",
      {},
      { additionalKeys: [["magic"], ["sword", "blade"]] },
      "magic",
      { rule: "additional_keys", words: ["sword", "blade"] },
    ],
    [
      "@@exclude_keys: the one there",
      {},
      { excludeKeys: ["peace", "war"] },
      "magic war",
      { rule: "exclude_keys", words: ["war"] },
    ],
    [
      "all is weighed before any",
      { all: ["night"], any: ["sword"] },
      {},
      "magic",
      { rule: "all", words: ["night"] },
    ],
  ])("%s", async (_name, secondary, rules, text, stop) => {
    const veto = await vetoOf(magic(secondary, rules), new Set([0]), hit(text), { scanDepth: 0 });
    expect(veto).toEqual({ reason: "secondary", stop });
  });
});

describe("policy in the veto", () => {
  const found = new Set([0]);
  const window = [{ raw: "magic", folded: "magic" }];
  // Every card here misses its `all` word, so only the policy decides whether that matters.
  test.each<[string, Partial<CardRules>, Veto["reason"] | null]>([
    ["automatic is stopped by its words", {}, "secondary"],
    ["manual is not automatic", { policy: "manual" }, "not_automatic"],
    ["never", { policy: "never" }, "never"],
    ["always is not stopped by its words", { policy: "always" }, null],
  ])("%s", async (_name, rules, expected) => {
    const veto = await vetoOf(magic({ all: ["absent"] }, rules), found, window, { scanDepth: 1 });
    expect(veto?.reason ?? null).toBe(expected);
  });

  test("inject: false stays a synonym of manual", async () => {
    const veto = await vetoOf(card("A", { inject: false }), found, window, { scanDepth: 1 });
    expect(veto?.reason).toBe("not_automatic");
  });

  test("the matcher lists the always cards without a lookup", () => {
    const cards = [card("A"), card("B", {}, { policy: "always" }), card("C", {}, { policy: "never" })];
    expect(new Matcher(cards).alwaysCards()).toEqual([1]);
  });
});
