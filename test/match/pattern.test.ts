import { describe, expect, test } from "bun:test";
import { DEFAULT_RULES } from "../../src/card/rules.ts";
import { Matcher } from "../../src/match/matcher.ts";
import { keyPattern } from "../../src/match/pattern.ts";
import { card, fired } from "./_cards.ts";

const plain = { regex: false, caseSensitive: false };

describe("which keys are regular expressions", () => {
  test.each([
    ["a plain word", "dragon", plain, "plain"],
    ["a /pattern/ key", "/drag(on|ons)/", plain, "regex"],
    ["a /pattern/flags key", "/drag(on|ons)/gimsuy", plain, "regex"],
    ["a key with letters after the last slash that are no flags", "/drag/x", plain, "plain"],
    ["a pattern with an unescaped slash of its own", "/usr/bin/", plain, "plain"],
    ["a pattern with an escaped slash", "/a\\/b/", plain, "regex"],
    ["an empty pattern", "//", plain, "plain"],
    ["a bare pattern on a regex card", "drag(on|ons)", { regex: true, caseSensitive: false }, "regex"],
    ["a blank key on a regex card", "  ", { regex: true, caseSensitive: false }, "plain"],
    ["an invalid /pattern/", "/[abc/", plain, "error"],
    ["a JavaScript-only construct re2 refuses (lookahead)", "/(?=x)y/", plain, "error"],
    ["an invalid bare pattern on a regex card", "[abc", { regex: true, caseSensitive: false }, "error"],
  ])("%s", (_name, key, rules, expected) => {
    const got = keyPattern(key, rules);
    expect(got === null ? "plain" : "regex" in got ? "regex" : "error").toBe(expected);
  });

  test("an invalid pattern's error names what is wrong, for check", () => {
    expect(keyPattern("/[abc/", plain)).toEqual({ error: expect.stringContaining("missing closing ]") });
  });

  test("the same key and flags compile once", () => {
    const a = keyPattern("/cache(d)?/i", plain);
    expect(keyPattern(" /cache(d)?/i ", plain)).toBe(a!);
    expect(keyPattern("/cache(d)?/", plain)).not.toBe(a!);
  });
});

describe("regular-expression keys fire cards", () => {
  const keyed = (key: string, rules = {}) => card("Lore", { title: "zzz", keywords: [key] }, rules);
  test.each([
    ["the i flag ignores case", keyed("/drag(on|ons)/i"), "DRAGONS arrive", true],
    ["without i a /…/ key keeps its case", keyed("/Dragon/"), "a dragon", false],
    ["…and matches its own case", keyed("/Dragon/"), "a Dragon", true],
    ["the m flag: ^ at a line start", keyed("/^knight/m"), "hello\nknight here", true],
    ["without m, ^ is the text start", keyed("/^knight/"), "hello\nknight here", false],
    ["the s flag: . matches a newline", keyed("/a.b/s"), "a\nb", true],
    ["without s, . stops at a newline", keyed("/a.b/"), "a\nb", false],
    ["g, y and u change nothing", keyed("/cat/gyu"), "cat", true],
    ["JavaScript escapes are read", keyed("/\\u00e9t\\u00e9/"), "en été", true],
    ["an escaped slash matches a slash", keyed("/a\\/b/"), "path a/b", true],
    ["a bare pattern on a regex card ignores case", keyed("drag(on|ons)", { regex: true }), "DRAGONS", true],
    [
      "…unless the card is case-sensitive",
      keyed("drag(on|ons)", { regex: true, caseSensitive: true }),
      "DRAGONS",
      false,
    ],
    ["a bare pattern on a plain card is a word", keyed("drag(on|ons)"), "dragons", false],
    ["…found as written", keyed("drag(on|ons)"), "drag(on|ons)", true],
    ["a key with an unescaped slash is a plain word", keyed("/usr/bin/"), "see /usr/bin/ here", true],
    ["an invalid pattern never fires, even on its own text", keyed("/[abc/"), "/[abc/ [abc", false],
    ["a regex key ignores whole_words", keyed("/cat/", { wholeWords: true }), "category", true],
    ["a pattern runs on the text as written, not folded", keyed("/ß/"), "STRASSE", false],
  ])("%s", async (_name, c, text, expected) => {
    expect(await fired([c], [text])).toEqual(expected ? ["Lore"] : []);
  });

  test("a regex card's title is still a plain term", async () => {
    const c = card("Lore", { title: "The Lore", keywords: ["x+y"] }, { regex: true });
    expect(await fired([c], ["about the lore"])).toEqual(["Lore"]);
  });

  test("hits are the matched text folded; each key that matches counts toward the score", async () => {
    const c = card("Lore", { title: "zzz", keywords: ["/DRAG(on|ons)/i", "/Fire/"], aliases: ["/x*/"] });
    const [m] = await new Matcher([c]).match(["the Fire of DRAGONS", "Dragon"], { scanDepth: 1 });
    // current message: drag… and x* (empty match: the key stands in); one back: drag…, fire.
    expect(m?.hits).toEqual(["dragon", "/x*/", "fire"]);
    expect(m?.score).toBe(3 + 2);
    expect(m?.trigger).toBe(0);
  });

  test("a pattern sees only the card's own window", async () => {
    const c = card("Lore", { title: "zzz", keywords: ["/wyrm/"] }, { scanMessages: 1 });
    expect(await fired([c], ["wyrm", "now"])).toEqual([]);
    expect(await fired([c], ["now", "wyrm"])).toEqual(["Lore"]);
  });

  test("regex keys stay out of the automaton; the table lists the cards that have them", () => {
    const cards = [
      card("A", { keywords: ["/a+/"] }),
      card("B", { keywords: ["bee"] }),
      card("C", { keywords: ["c.*"] }, { regex: true }),
    ];
    const m = new Matcher(cards);
    expect(Array.from(m.table.regexCards)).toEqual([0, 2]);
    expect(m.table.texts).not.toContain("/a+/");
    expect(m.table.texts).not.toContain("c.*");
    expect(m.table.texts).toContain("bee");
  });
});

test("the defaults read no key as a pattern unless it is written /…/", () => {
  expect(keyPattern("a+b", DEFAULT_RULES)).toBeNull();
});

describe("regex keys run together keep their own flags and cards", () => {
  test("patterns with different flags in one set each keep theirs", async () => {
    const cards = [
      ["A", "/^knight/m"],
      ["B", "/^knight/"],
      ["C", "/KNIGHT/i"],
      ["D", "/KNIGHT/"],
      ["E", "/a.b/s"],
      ["F", "/a.b/"],
    ].map(([key, pattern]) => card(key!, { title: `t${key}`, keywords: [pattern!] }));
    expect((await fired(cards, ["hello\nknight a\nb"])).sort()).toEqual(["A", "C", "E"]);
  });

  test("hundreds of regex cards (several sets) each fire alone", async () => {
    const cards = Array.from({ length: 300 }, (_, i) =>
      card(`c${i}`, { title: `t${i}`, keywords: [`/\\bcard ${i}\\b/`] }),
    );
    expect((await fired(cards, ["card 7 and card 250, not card 2500"])).sort()).toEqual(["c250", "c7"]);
  });
});
