/**
 * Lorebook rules for the lookup benchmark: the same generated cards, a share of them dressed as an
 * imported world book is — regular-expression keys, inclusion groups, case-sensitive and whole-word
 * cards, NOT ALL secondary words, always-on entries — deterministically, so runs compare.
 */
import { DEFAULT_RULES } from "../src/card/rules.ts";
import type { CardRules } from "../src/card/types.ts";
import type { MatchCard } from "../src/match/matcher.ts";

const quoted = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * `cards` with lorebook rules; `regexEvery` picks which cards get a regex key (every n-th card). The
 * regex replaces the card's first keyword by a pattern that still finds it (any spacing, any case).
 */
export function withLorebookRules(cards: readonly MatchCard[], regexEvery: number): MatchCard[] {
  return cards.map((card, i) => {
    const rules: Partial<CardRules> = {};
    let keywords = card.keywords;
    if (i % regexEvery === 0 && keywords.length > 0) {
      const pattern = quoted(keywords[0]!).replaceAll(" ", "\\s+");
      // Every other one inside a group, which hides its literals: half the keys run in the re2js
      // sets, half behind their required literals (src/match/regex-scan.ts).
      keywords = [(i / regexEvery) % 2 === 0 ? `/${pattern}/i` : `/(${pattern})/i`, ...keywords.slice(1)];
    }
    if (i % 10 === 3) rules.groups = [`group ${i % 37}`];
    if (i % 20 === 5) rules.caseSensitive = true;
    if (i % 20 === 7) rules.wholeWords = true;
    if (i % 20 === 9) rules.wholeWords = false;
    if (i % 200 === 13) rules.policy = "always";
    const secondary = i % 50 === 11 ? { ...card.secondary, notAll: ["rain", "market"] } : card.secondary;
    return { ...card, keywords, secondary, rules: { ...DEFAULT_RULES, ...rules } };
  });
}
