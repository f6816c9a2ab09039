/**
 * The matcher: every card's terms (keywords + aliases + title) compiled into one automaton, and the
 * rules that turn raw term hits into noticed cards — the scan window, whole-token matching for
 * one-character terms, and the score. `match` adds the vetoes (secondary.ts) and the order, for callers
 * that want fired cards in one call; recall runs those as stages of its own. Pure: cards and text in,
 * hits out.
 */
import type { CardMeta } from "../card/types.ts";
import { Automaton, type AutomatonHit } from "./automaton.ts";
import { charCount, fold } from "./fold.ts";
import { vetoOf } from "./secondary.ts";
import { isWholeToken, type MatchOptions, newestFirst, type WindowMessage } from "./window.ts";

export type { MatchOptions } from "./window.ts";

/** The part of a card the matcher needs. */
export type MatchCard = Pick<
  CardMeta,
  "key" | "kind" | "title" | "keywords" | "aliases" | "secondary" | "scanDepth" | "priority" | "inject"
>;

/**
 * The cards a matcher was built from, by position. An array works; the engine passes a lazy list
 * that decodes a card's metadata only when one of its terms is hit.
 */
export interface CardSource {
  readonly length: number;
  at(index: number): MatchCard | undefined;
}

export interface CardMatch {
  /** Index of the card in the list the matcher was built from. */
  card: number;
  score: number;
  /** Distinct matched terms, folded, in the order first seen (newest message first). */
  hits: string[];
  /** Index (0 = current, 1 = the message before, …) of the newest message that produced a hit. */
  trigger: number;
}

/** A card whose terms were hit, before any veto. */
export interface CardNotice extends CardMatch {
  /** Window positions (0 = current message, 1 = the one before, …) of the messages that hit it. */
  found: ReadonlySet<number>;
}

/** What one scan noticed: the window it read (newest first) and the cards hit, in first-hit order. */
export interface Noticed {
  window: WindowMessage[];
  cards: CardNotice[];
}

/** The terms table: term id → folded text, one-character flag, and the cards that carry it. */
export interface TermTable {
  texts: string[];
  single: Uint8Array;
  /** Cards of term t are cardList[cardStart[t] .. cardStart[t + 1]). */
  cardStart: Int32Array;
  cardList: Int32Array;
  /** The largest `scan_depth` any card asks for. */
  maxDepth: number;
}

export class Matcher {
  readonly automaton: Automaton;
  readonly table: TermTable;

  /** Compile `cards`, or adopt a table and automaton saved earlier for exactly these cards. */
  constructor(
    private readonly cards: CardSource,
    saved?: { table: TermTable; automaton: Automaton },
  ) {
    this.table = saved?.table ?? buildTable(cards);
    this.automaton = saved?.automaton ?? new Automaton(this.table.texts);
  }

  get termCount(): number {
    return this.table.texts.length;
  }

  /** True when some card term of two or more characters occurs in `folded` (for candidate keywords). */
  containsTerm(folded: string): boolean {
    let found = false;
    this.automaton.scan(folded, (hit) => {
      if (this.table.single[hit.term] === 0) found = true;
    });
    return found;
  }

  /**
   * Cards that fire on `messages` (oldest first; the last is the current message), ordered by
   * score ↓, priority ↓, title. Cards with `inject: false` never fire automatically.
   */
  async match(messages: readonly string[], options: MatchOptions): Promise<CardMatch[]> {
    const { window, cards } = await this.notice(messages, options);
    const out: CardMatch[] = [];
    for (const { found, ...match } of cards) {
      if ((await vetoOf(this.cards.at(match.card)!, found, window, options)) === null) out.push(match);
    }
    return out.sort((a, b) => compareMatches(this.cards.at(a.card)!, a, this.cards.at(b.card)!, b));
  }

  /** Every card whose terms occur in its scan window, with its score; no veto, no order. */
  async notice(messages: readonly string[], options: MatchOptions): Promise<Noticed> {
    const depth = Math.max(options.scanDepth, this.table.maxDepth);
    const { single, cardStart, cardList } = this.table;
    const window = newestFirst(messages, 1 + 2 * depth);
    const perCard = new Map<number, CardState>();
    for (let m = 0; m < window.length; m++) {
      const hits: AutomatonHit[] = [];
      this.automaton.scan(window[m]!.folded, (hit) => hits.push(hit));
      for (const hit of hits) {
        if (single[hit.term] === 1 && !(await isWholeToken(window[m]!, hit, options.segmenter))) continue;
        for (let c = cardStart[hit.term]!; c < cardStart[hit.term + 1]!; c++) {
          const card = cardList[c]!;
          const limit = 2 * (this.cards.at(card)!.scanDepth ?? options.scanDepth);
          if (m > limit) continue;
          let state = perCard.get(card);
          if (!state) {
            state = { terms: new Set(), current: new Set(), messages: new Set() };
            perCard.set(card, state);
          }
          state.terms.add(hit.term);
          state.messages.add(m);
          if (m === 0) state.current.add(hit.term);
        }
      }
    }
    const cards = [...perCard].map(([index, state]) => ({
      card: index,
      score: state.terms.size + state.current.size,
      hits: [...state.terms].map((t) => this.table.texts[t]!),
      trigger: Math.min(...state.messages),
      found: state.messages,
    }));
    return { window, cards };
  }
}

function buildTable(cards: CardSource): TermTable {
  const ids = new Map<string, number>();
  const texts: string[] = [];
  const perTerm: number[][] = [];
  let maxDepth = 0;
  for (let index = 0; index < cards.length; index++) {
    const card = cards.at(index)!;
    if (card.scanDepth !== null && card.scanDepth > maxDepth) maxDepth = card.scanDepth;
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
  return { texts, single, cardStart, cardList, maxDepth };
}

interface CardState {
  terms: Set<number>;
  current: Set<number>;
  messages: Set<number>;
}

/** The card's match terms, folded and deduplicated: keywords, aliases and the title. */
export function cardTerms(card: Pick<MatchCard, "keywords" | "aliases" | "title">): string[] {
  const out = new Set<string>();
  for (const raw of [...card.keywords, ...card.aliases, card.title]) {
    const term = fold(raw.trim());
    if (term.length > 0) out.add(term);
  }
  return [...out];
}

/** Fired cards in order: score ↓, priority ↓, title, kind. */
export function compareMatches(
  ca: MatchCard,
  a: Pick<CardMatch, "score">,
  cb: MatchCard,
  b: Pick<CardMatch, "score">,
): number {
  if (a.score !== b.score) return b.score - a.score;
  if (ca.priority !== cb.priority) return cb.priority - ca.priority;
  if (ca.title !== cb.title) return ca.title < cb.title ? -1 : 1;
  return ca.kind < cb.kind ? -1 : ca.kind > cb.kind ? 1 : 0;
}
