/**
 * The terms table a matcher is built on: every card's plain terms, deduplicated, with the cards that
 * carry each (the automaton is compiled from `texts`), and the few card lists a lookup needs without
 * decoding every card — the cards with regular-expression keys and the `always` cards — plus the
 * deepest window any card asks for. Saved with the automaton in the snapshot.
 */
import { rulesOf } from "../card/rules.ts";
import type { CardRules } from "../card/types.ts";
import { type Strings, sortedOrder } from "./_packed.ts";
import { charCount, fold } from "./fold.ts";
import type { CardSource, MatchCard } from "./matcher.ts";
import { isPatternKey } from "./pattern.ts";
import { turnsFor } from "./window.ts";

/** The terms table: term id → folded text, one-character flag, and the cards that carry it. */
export interface TermTable {
  /** Term id → folded text (a packed list when loaded from a snapshot: decoded per term hit). */
  texts: Strings;
  single: Uint8Array;
  /** Cards of term t are cardList[cardStart[t] .. cardStart[t + 1]). */
  cardStart: Int32Array;
  cardList: Int32Array;
  /** Turns of history the deepest card window needs (`scan_depth`, or `scan_messages` in turns). */
  maxDepth: number;
  /** Cards with at least one regular-expression key, ascending: the ones a lookup runs patterns for. */
  regexCards: Int32Array;
  /** Cards whose policy is `always`, ascending, so recall adds them without decoding every card. */
  alwaysCards: Int32Array;
  /** Card → its folded title, and the cards in code-unit order of it (`findIn`), for prefix questions. */
  titles: Strings;
  titleOrder: Int32Array;
}

/** The table of `cards`: their plain terms, regex and always lists, and the deepest window. */
export function buildTable(cards: CardSource): TermTable {
  const ids = new Map<string, number>();
  const texts: string[] = [];
  const perTerm: number[][] = [];
  const regexCards: number[] = [];
  const alwaysCards: number[] = [];
  const titles: string[] = [];
  let maxDepth = 0;
  for (let index = 0; index < cards.length; index++) {
    const card = cards.at(index)!;
    titles.push(fold(card.title));
    const rules = rulesOf(card);
    if (card.scanDepth !== null && card.scanDepth > maxDepth) maxDepth = card.scanDepth;
    if (rules.scanMessages !== null) maxDepth = Math.max(maxDepth, turnsFor(rules.scanMessages));
    if (rules.policy === "always") alwaysCards.push(index);
    if (cardPatterns(card).length > 0) regexCards.push(index);
    for (const term of cardTerms(card)) {
      let id = ids.get(term);
      if (id === undefined) {
        id = texts.length;
        ids.set(term, id);
        texts.push(term);
        perTerm.push([]);
      }
      perTerm[id]!.push(index);
    }
  }
  const cardStart = new Int32Array(texts.length + 1);
  let total = 0;
  perTerm.forEach((list, t) => {
    cardStart[t] = total;
    total += list.length;
  });
  cardStart[texts.length] = total;
  const cardList = new Int32Array(total);
  perTerm.forEach((list, t) => {
    cardList.set(list, cardStart[t]!);
  });
  const single = new Uint8Array(texts.map((t) => (charCount(t) === 1 ? 1 : 0)));
  return {
    texts,
    single,
    cardStart,
    cardList,
    maxDepth,
    regexCards: Int32Array.from(regexCards),
    alwaysCards: Int32Array.from(alwaysCards),
    titles,
    titleOrder: sortedOrder(titles),
  };
}

type TermSource = Pick<MatchCard, "keywords" | "aliases" | "title" | "rules">;

/** The card's plain words as written, trimmed: keywords and aliases that are no pattern, and the title. */
export function plainSpellings(card: TermSource, rules: CardRules = rulesOf(card)): string[] {
  const out: string[] = [];
  for (const raw of [...card.keywords, ...card.aliases]) {
    if (!isPatternKey(raw, rules)) out.push(raw.trim());
  }
  out.push(card.title.trim());
  return out.filter((s) => s.length > 0);
}

/**
 * The card's automaton terms, folded and deduplicated: keywords and aliases that are no regular
 * expression, and the title (always a plain term, whatever the card's `regex` rule).
 */
export function cardTerms(card: TermSource): string[] {
  const out = new Set<string>();
  for (const spelling of plainSpellings(card)) {
    const term = fold(spelling);
    if (term.length > 0) out.add(term);
  }
  return [...out];
}

/** The card's keywords and aliases read as regular expressions (pattern.ts), valid or not. */
export function cardPatterns(card: Pick<MatchCard, "keywords" | "aliases" | "rules">): string[] {
  const rules = rulesOf(card);
  return [...card.keywords, ...card.aliases].filter((key) => isPatternKey(key, rules));
}
