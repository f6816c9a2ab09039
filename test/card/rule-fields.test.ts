// The lorebook fields of a card's frontmatter (README "Lorebook fields") → CardMeta.rules.
import { describe, expect, test } from "bun:test";
import { cardMeta, DEFAULT_RULES, parseCard, rulesOf } from "../../src/card/index.ts";
import type { CardRules } from "../../src/card/types.ts";

const card = (frontmatter: string) =>
  parseCard(`---\n${frontmatter}\n---\nSome text.\n`, { kind: "entry", key: "the-card" });

describe("each lorebook field sets its rule", () => {
  test.each<[string, Partial<CardRules>]>([
    ["context: always", { policy: "always" }],
    ["context: Manual", { policy: "manual" }],
    ["context: never", { policy: "never" }],
    ["case_sensitive: yes", { caseSensitive: true }],
    ["whole_words: true", { wholeWords: true }],
    ["whole_words: false", { wholeWords: false }],
    ["regex: on", { regex: true }],
    ["scan_messages: 0", { scanMessages: 0 }],
    ["scan_messages: '6'", { scanMessages: 6 }],
    ["order: -5", { order: -5 }],
    ["group: lords, ladies", { groups: ["lords", "ladies"] }],
    ["group: [lords]", { groups: ["lords"] }],
    ["group_override: true", { groupOverride: true }],
    ["group_weight: 25", { groupWeight: 25 }],
    ["group_scoring: false", { groupScoring: false }],
    ["probability: 0", { probability: 0 }],
    ["probability: 42.5", { probability: 42.5 }],
    ["exclude_recursion: true", { excludeRecursion: true }],
    ["prevent_recursion: true", { preventRecursion: true }],
    ["delay_until_recursion: true", { delayUntilRecursion: true }],
    ["sticky: 3", { sticky: 3 }],
    ["cooldown: 2", { cooldown: 2 }],
    ["delay: 5", { delay: 5 }],
    ["ignore_budget: yes", { ignoreBudget: true }],
    ["position: an_top", { placement: { position: "an_top", depth: null, role: null } }],
    ["position: 1", { placement: { position: "after_char", depth: null, role: null } }],
    ["position: before_desc", { placement: { position: "before_desc", depth: null, role: null } }],
    ["depth: 2", { placement: { position: "at_depth", depth: 2, role: null } }],
    ["position: em_top\ndepth: 4", { placement: { position: "em_top", depth: 4, role: null } }],
    ["role: assistant", { placement: { position: null, depth: null, role: "assistant" } }],
    ["role: 1", { placement: { position: null, depth: null, role: "user" } }],
    ["inject: false", { policy: "manual" }],
    ["inject: false\ncontext: always", { policy: "always" }],
    ["decorators: ['@@activate']", { policy: "always" }],
    ["decorators: '@@scan_depth 4'", { scanMessages: 4 }],
  ])("%s", (yaml, expected) => {
    const c = card(yaml);
    expect(c.warnings).toEqual([]);
    expect(c.rules).toEqual({ ...DEFAULT_RULES, ...expected } as CardRules);
  });

  test("inject: false is still read as inject: false, for the code that asks it", () => {
    expect(card("inject: false").inject).toBe(false);
  });

  test("a plain card, or one whose fields all say the default, has no rules", () => {
    for (const yaml of ["title: x", "context: automatic\nprobability: 100\nwhole_words: null\ngroup: []"]) {
      const c = card(yaml);
      expect(c).not.toHaveProperty("rules");
      expect(rulesOf(c)).toEqual(DEFAULT_RULES);
    }
  });

  test("the index-sized metadata carries the rules", () => {
    expect(cardMeta(card("context: always")).rules?.policy).toBe("always");
    expect(cardMeta(card("title: x"))).not.toHaveProperty("rules");
  });
});

describe("an explicit field wins over a decorator", () => {
  test.each<[string, Partial<CardRules>]>([
    ["context: manual\ndecorators: ['@@activate']", { policy: "manual" }],
    ["inject: false\ndecorators: ['@@activate']", { policy: "manual" }],
    ["scan_messages: 1\ndecorators: ['@@scan_depth 9']", { scanMessages: 1 }],
    [
      "role: user\ndecorators: ['@@depth 3', '@@role system']",
      { placement: { position: "at_depth", depth: 3, role: "user" } },
    ],
    [
      "position: before_char\ndecorators: ['@@depth 3']",
      { placement: { position: "before_char", depth: 3, role: null } },
    ],
    // A malformed field says nothing, so the decorator's value stands.
    ["scan_messages: lots\ndecorators: ['@@scan_depth 9']", { scanMessages: 9 }],
  ])("%s", (yaml, expected) => {
    expect(card(yaml).rules).toEqual({ ...DEFAULT_RULES, ...expected } as CardRules);
  });
});

describe("a malformed value is ignored with a warning naming the field and the value", () => {
  test.each([
    ["context: sometimes", 'context "sometimes"'],
    ["case_sensitive: maybe", 'case_sensitive "maybe"'],
    ["whole_words: [a]", "whole_words"],
    ["regex: 2", "regex 2"],
    ["scan_messages: -1", "scan_messages -1"],
    ["scan_messages: 1.5", "scan_messages 1.5"],
    ["order: first", 'order "first"'],
    ["group: {a: 1}", "group"],
    ["group_weight: 0", "group_weight 0"],
    ["probability: 150", "probability 150"],
    ["probability: -1", "probability -1"],
    ["sticky: forever", 'sticky "forever"'],
    ["cooldown: -3", "cooldown -3"],
    ["delay: x", 'delay "x"'],
    ["ignore_budget: perhaps", 'ignore_budget "perhaps"'],
    ["position: top", 'position "top"'],
    ["position: 8", "position 8"],
    ["depth: deep", 'depth "deep"'],
    ["role: narrator", 'role "narrator"'],
    ["decorators: {depth: 4}", "decorators"],
    ["decorators: [4]", "decorators"],
  ])("%s", (yaml, named) => {
    const c = card(yaml);
    expect(c.warnings).toHaveLength(1);
    expect(c.warnings[0]).toContain(named);
    expect(c).not.toHaveProperty("rules");
  });

  test("a decorator problem is a card warning too", () => {
    const c = card("decorators: ['@@depth far', '@@frobnicate']");
    expect(c.warnings).toEqual([
      'decorator "@@depth far" needs a whole number ≥ 0; ignored',
      'decorator "@@frobnicate" is not a known decorator; ignored',
    ]);
  });
});

describe("secondary not_all", () => {
  test("not_all is read into Secondary.notAll, beside all, any and not", () => {
    const c = card("secondary: {all: a, any: [b], not: c, not_all: 'd, e'}");
    expect(c.secondary).toEqual({ all: ["a"], any: ["b"], not: ["c"], notAll: ["d", "e"] });
    expect(c.warnings).toEqual([]);
  });

  test("an unknown part names not_all among the known ones", () => {
    expect(card("secondary: {none: x}").warnings).toEqual([
      "secondary.none is not all / any / not / not_all; ignored",
    ]);
  });
});

describe("word lists keep what they can", () => {
  test.each([
    ["keywords: [42, 3.5, true, [x]]", "keywords", ["42", "3.5", "true"], 'keywords: ["x"]'],
    ["aliases: [Al, {a: 1}, Ally]", "aliases", ["Al", "Ally"], 'aliases: {"a":1}'],
    ["refs: [[a], Bob, [b]]", "refs", ["Bob"], 'refs: ["a"] and 1 more'],
    [
      "secondary: {any: [x, [y]]}",
      "secondary",
      { all: [], any: ["x"], not: [], notAll: [] },
      "secondary.any",
    ],
  ])("a nested value in %s is dropped, the scalars kept, with a warning", (yaml, field, expected, warned) => {
    const c = card(yaml);
    expect((c as unknown as Record<string, unknown>)[field]).toEqual(expected);
    expect(c.warnings).toHaveLength(1);
    expect(c.warnings[0]).toContain(warned);
  });

  test.each([
    ["keywords: Alpha, 'Beta'", ["Alpha", "Beta"]],
    ['keywords: Alpha, "Beta", Gamma', ["Alpha", "Beta", "Gamma"]],
    ["keywords: Alpha, ' Beta '", ["Alpha", "Beta"]],
    // Only a matching pair is YAML's quoting; a lone or mismatched quote is part of the word.
    ["keywords: Alpha, 'Beta\"", ["Alpha", "'Beta\""]],
    ["keywords: rock 'n' roll, Beta", ["rock 'n' roll", "Beta"]],
    ["keywords: \"'Beta', ''\"", ["Beta"]],
  ])("a comma line %s loses one pair of quotes around each word", (yaml, expected) => {
    expect(card(yaml).keywords).toEqual(expected);
  });
});
