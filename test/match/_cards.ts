/** Cards and a one-call matcher for the match tests. */
import { DEFAULT_RULES } from "../../src/card/rules.ts";
import type { CardRules } from "../../src/card/types.ts";
import { type MatchCard, Matcher } from "../../src/match/matcher.ts";
import { jiebaSegmenter } from "../../src/match/segment.ts";

/** A card titled `key`; `rules` fills in over the defaults. */
export function card(key: string, extra: Partial<MatchCard> = {}, rules?: Partial<CardRules>): MatchCard {
  return {
    key,
    kind: "people",
    title: key,
    keywords: [],
    aliases: [],
    secondary: { all: [], any: [], not: [], notAll: [] },
    scanDepth: null,
    priority: 0,
    inject: true,
    ...(rules ? { rules: { ...DEFAULT_RULES, ...rules } } : {}),
    ...extra,
  };
}

/** Keys of the cards that fire on `messages` (oldest first), in order. */
export async function fired(cards: MatchCard[], messages: string[], scanDepth = 3, segment = true) {
  const matcher = new Matcher(cards);
  const out = await matcher.match(messages, { scanDepth, segmenter: segment ? jiebaSegmenter : undefined });
  return out.map((m) => cards[m.card]!.key);
}
