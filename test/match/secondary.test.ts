import { describe, expect, test } from "bun:test";
import type { CardRules, Secondary } from "../../src/card/types.ts";
import { Matcher } from "../../src/match/matcher.ts";
import { type Veto, vetoOf } from "../../src/match/secondary.ts";
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
      "regex: true makes every secondary word a pattern",
      magic({ all: ["fi.e"] }, { regex: true }),
      "magic five",
      true,
    ],
    ["the not list still looks only at hit messages", magic({ not: ["Cooper"] }), "magic", true],
  ])("%s", async (_name, c, text, expected) => {
    expect(await fired([c], ["Cooper was here", text])).toEqual(expected ? ["Magic"] : []);
  });
});

describe("policy in the veto", () => {
  const found = new Set([0]);
  const window = [{ raw: "magic", folded: "magic" }];
  // Every card here misses its `all` word, so only the policy decides whether that matters.
  test.each<[string, Partial<CardRules>, Veto | null]>([
    ["automatic is stopped by its words", {}, "secondary"],
    ["manual is not automatic", { policy: "manual" }, "not_automatic"],
    ["never", { policy: "never" }, "never"],
    ["always is not stopped by its words", { policy: "always" }, null],
  ])("%s", async (_name, rules, expected) => {
    expect(await vetoOf(magic({ all: ["absent"] }, rules), found, window, { scanDepth: 1 })).toBe(expected);
  });

  test("inject: false stays a synonym of manual", async () => {
    expect(await vetoOf(card("A", { inject: false }), found, window, { scanDepth: 1 })).toBe("not_automatic");
  });

  test("the matcher lists the always cards without a lookup", () => {
    const cards = [card("A"), card("B", {}, { policy: "always" }), card("C", {}, { policy: "never" })];
    expect(new Matcher(cards).alwaysCards()).toEqual([1]);
  });
});
