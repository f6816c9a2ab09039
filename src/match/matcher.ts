/**
 * The matcher: every card's terms (keywords + aliases + title) compiled into one automaton, and the
 * rules that turn raw term hits into fired cards — the scan window, whole-token matching for
 * one-character terms, secondary all/any/not, and the score. Pure: cards and text in, hits out.
 */
import type { CardMeta } from "../card/types.ts";
import { Automaton, type AutomatonHit } from "./automaton.ts";
import { charCount, fold, isWordCharAt, UNSPACED } from "./fold.ts";
import type { Segmenter } from "./segment.ts";

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

export interface MatchOptions {
  /** Turns of history in the window when a card has no `scan_depth` of its own. */
  scanDepth: number;
  /** Loads a segmenter when a one-character term sits inside Han or kana text; absent = no segmentation. */
  segmenter?: () => Promise<Segmenter>;
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

/** A message of the window, folded once. Index 0 is the current message. */
interface WindowMessage {
  folded: string;
  boundaries?: Set<number>;
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
    const depth = Math.max(options.scanDepth, this.table.maxDepth);
    const { single, cardStart, cardList } = this.table;
    const window = newestFirst(messages, 1 + 2 * depth);
    const perCard = new Map<number, CardState>();
    for (let m = 0; m < window.length; m++) {
      const hits: AutomatonHit[] = [];
      this.automaton.scan(window[m]!.folded, (hit) => hits.push(hit));
      for (const hit of hits) {
        if (single[hit.term] === 1 && !(await isWholeToken(window[m]!, hit, options))) continue;
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
    const out: CardMatch[] = [];
    for (const [index, state] of perCard) {
      const card = this.cards.at(index)!;
      if (!card.inject) continue;
      const limit = 2 * (card.scanDepth ?? options.scanDepth);
      if (!(await passesSecondary(card, window.slice(0, limit + 1), state.messages, options))) continue;
      out.push({
        card: index,
        score: state.terms.size + state.current.size,
        hits: [...state.terms].map((t) => this.table.texts[t]!),
        trigger: Math.min(...state.messages),
      });
    }
    return out.sort((a, b) => compareMatches(this.cards.at(a.card)!, a, this.cards.at(b.card)!, b));
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

function compareMatches(ca: MatchCard, a: CardMatch, cb: MatchCard, b: CardMatch): number {
  if (a.score !== b.score) return b.score - a.score;
  if (ca.priority !== cb.priority) return cb.priority - ca.priority;
  if (ca.title !== cb.title) return ca.title < cb.title ? -1 : 1;
  return ca.kind < cb.kind ? -1 : ca.kind > cb.kind ? 1 : 0;
}

function newestFirst(messages: readonly string[], count: number): WindowMessage[] {
  const out: WindowMessage[] = [];
  for (let i = messages.length - 1; i >= 0 && out.length < count; i--) {
    out.push({ folded: fold(messages[i]!) });
  }
  return out;
}

/**
 * A one-character term counts only as a whole token. Between spaces or punctuation that is plain;
 * inside Han or kana text it takes a segmenter, and without one the term does not match there.
 */
async function isWholeToken(msg: WindowMessage, hit: AutomatonHit, options: MatchOptions): Promise<boolean> {
  const text = msg.folded;
  const before = isWordCharAt(text, hit.start - 1);
  const after = isWordCharAt(text, hit.end);
  if (!before && !after) return true;
  const neighbours = text.slice(Math.max(0, hit.start - 1), hit.end + 1);
  if (!options.segmenter || !UNSPACED.test(neighbours)) return false;
  msg.boundaries ??= await boundaries(text, options.segmenter);
  return msg.boundaries.has(hit.start) && msg.boundaries.has(hit.end);
}

async function boundaries(text: string, segmenter: () => Promise<Segmenter>): Promise<Set<number>> {
  const seg = await segmenter();
  const out = new Set<number>([0]);
  let at = 0;
  for (const word of seg.cut(text)) {
    at += word.length;
    out.add(at);
  }
  return out;
}

/** True when `word` (any case) occurs in already-folded `text` under the same rules as a term. */
async function occurs(
  text: string,
  word: string,
  msg: WindowMessage | undefined,
  options: MatchOptions,
): Promise<boolean> {
  const needle = fold(word.trim());
  if (needle.length === 0) return false;
  const single = charCount(needle) === 1;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    if (!single) return true;
    const m = msg ?? { folded: text };
    if (await isWholeToken(m, { term: -1, start: at, end: at + needle.length }, options)) return true;
  }
  return false;
}

async function passesSecondary(
  card: MatchCard,
  window: WindowMessage[],
  hitMessages: Set<number>,
  options: MatchOptions,
): Promise<boolean> {
  const { all, any, not } = card.secondary;
  const inWindow = async (word: string) => {
    for (const m of window) if (await occurs(m.folded, word, m, options)) return true;
    return false;
  };
  for (const word of all) if (!(await inWindow(word))) return false;
  if (any.length > 0) {
    let found = false;
    for (const word of any) if (await inWindow(word)) found = true;
    if (!found) return false;
  }
  for (const word of not) {
    for (const m of hitMessages) {
      const msg = window[m];
      if (msg && (await occurs(msg.folded, word, msg, options))) return false;
    }
  }
  return true;
}
