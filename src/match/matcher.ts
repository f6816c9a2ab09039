/**
 * The matcher: every card's plain terms (keywords + aliases + title) compiled into one automaton, and
 * the rules that turn raw term hits into noticed cards — each card's window, its case and whole-word
 * rules, its regular-expression keys, and the score. Regular-expression keys (pattern.ts) cannot go in
 * the automaton: the table lists the cards that have them, and each lookup runs just those cards'
 * patterns over their windows, the one cost per card a lookup has. `match` adds the vetoes
 * (secondary.ts) and the order, for callers that want fired cards in one call; recall runs those as
 * stages of its own. Pure: cards and text in, hits out.
 */
import { rulesOf } from "../card/rules.ts";
import type { CardMeta, CardRules } from "../card/types.ts";
import { Automaton } from "./automaton.ts";
import { fold } from "./fold.ts";
import { compilePattern, firstMatch, keySource } from "./pattern.ts";
import { type RegexKey, RegexScan } from "./regex-scan.ts";
import { vetoOf } from "./secondary.ts";
import { buildTable, cardPatterns, plainSpellings, type TermTable } from "./table.ts";
import {
  isWholeToken,
  type MatchOptions,
  newestFirst,
  occursIn,
  type WindowMessage,
  windowSize,
  wordRule,
  wordVerdict,
} from "./window.ts";

export type { MatchOptions } from "./window.ts";

/** The part of a card the matcher needs. */
export type MatchCard = Pick<
  CardMeta,
  | "key"
  | "kind"
  | "title"
  | "keywords"
  | "aliases"
  | "secondary"
  | "scanDepth"
  | "priority"
  | "inject"
  | "rules"
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
  /**
   * Distinct matched terms, folded, in the order first seen (newest message first). For a regular
   * expression key: the text it matched, folded (the key itself when it matched the empty string).
   */
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

/**
 * One compiled part of a matcher: a term table and its automaton over the cards at positions
 * `offset …` of the matcher's card list. A matcher loaded from a snapshot is the snapshot's layer plus
 * a small layer of the cards changed since, with the snapshot's copies of those cards `hidden`: an
 * edit compiles only what changed instead of rebuilding everything (recall/_compiled.ts).
 */
export interface Layer {
  table: TermTable;
  automaton: Automaton;
  /** Position in the matcher's card list of this layer's card 0. */
  offset: number;
  /** This layer's own card numbers that no longer count (their card changed or is gone). */
  hidden?: ReadonlySet<number>;
}

/** Compile `count` cards of `cards` from position `offset` into one layer. */
export function buildLayer(cards: CardSource, offset = 0, count = cards.length - offset): Layer {
  const part: CardSource = { length: count, at: (i) => cards.at(offset + i) };
  const table = buildTable(part);
  return { table, automaton: new Automaton(table.texts as string[]), offset };
}

export class Matcher {
  readonly layers: readonly Layer[];

  /** Compile `cards` in one layer, or adopt layers compiled earlier (a snapshot, an overlay). */
  constructor(
    private readonly cards: CardSource,
    layers?: readonly Layer[],
  ) {
    this.layers = layers ?? [buildLayer(cards)];
  }

  /** The first layer's table and automaton: what a snapshot saves. */
  get table(): TermTable {
    return this.layers[0]!.table;
  }

  get automaton(): Automaton {
    return this.layers[0]!.automaton;
  }

  get termCount(): number {
    return this.layers.reduce((n, l) => n + l.table.texts.length, 0);
  }

  /** Turns of history the deepest card window needs. */
  get maxDepth(): number {
    return Math.max(0, ...this.layers.map((l) => l.table.maxDepth));
  }

  /** Indices of the cards whose policy is `always`. */
  alwaysCards(): number[] {
    return this.live((t) => t.alwaysCards);
  }

  /** The cards of one of each layer's lists, as matcher positions, without the hidden ones. */
  private live(list: (t: TermTable) => Int32Array): number[] {
    const out: number[] = [];
    for (const { table, offset, hidden } of this.layers) {
      for (const i of list(table)) if (!hidden?.has(i)) out.push(offset + i);
    }
    return out;
  }

  /** True when some card's folded title starts with `folded` and is longer (for candidate aliases). */
  extendsTitle(folded: string): boolean {
    for (const { table, hidden } of this.layers) {
      const { titles, titleOrder } = table;
      // The first title not before `folded` in code-unit order, then on while titles start with it.
      let lo = 0;
      let hi = titleOrder.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (titles.at(titleOrder[mid]!)! < folded) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < titleOrder.length; i++) {
        const card = titleOrder[i]!;
        const title = titles.at(card)!;
        if (!title.startsWith(folded)) break;
        if (title !== folded && !hidden?.has(card)) return true;
      }
    }
    return false;
  }

  /**
   * True when some live card's term of two or more characters occurs in `folded` (for candidate
   * keywords). A hidden card's terms are left out: a card saved or archived since its layer was built
   * no longer covers the words it had.
   */
  containsTerm(folded: string): boolean {
    let found = false;
    for (const { table, automaton, hidden } of this.layers) {
      automaton.scan(folded, (hit) => {
        if (found || table.single[hit.term] !== 0) return;
        if (!hidden?.size) found = true;
        else {
          for (let c = table.cardStart[hit.term]!; c < table.cardStart[hit.term + 1]!; c++) {
            if (!hidden.has(table.cardList[c]!)) found = true;
          }
        }
      });
    }
    return found;
  }

  /**
   * Cards that fire on `messages` (oldest first; the last is the current message), ordered by
   * score ↓, priority ↓, title: the noticed cards that no veto stops (secondary.ts: `manual`,
   * `never` and `inject: false` cards never fire on their words). `always` cards fire here only when
   * named; recall adds the others from `alwaysCards()`.
   */
  async match(messages: readonly string[], options: MatchOptions): Promise<CardMatch[]> {
    const { window, cards } = await this.notice(messages, options);
    const out: CardMatch[] = [];
    for (const { found, ...match } of cards) {
      if ((await vetoOf(this.cards.at(match.card)!, found, window, options)) === null) out.push(match);
    }
    return out.sort((a, b) => compareMatches(this.cards.at(a.card)!, a, this.cards.at(b.card)!, b));
  }

  /** Every card whose terms occur in its own window, with its score; no veto, no order. */
  async notice(messages: readonly string[], options: MatchOptions): Promise<Noticed> {
    const depth = Math.max(options.scanDepth, this.maxDepth);
    const window = newestFirst(messages, 1 + 2 * depth);
    const perCard = new Map<number, CardState>();
    const note = (card: number, id: number | string, text: string, m: number) => {
      let state = perCard.get(card);
      if (!state) {
        state = { terms: new Map(), current: new Set(), messages: new Set() };
        perCard.set(card, state);
      }
      if (!state.terms.has(id)) state.terms.set(id, text);
      state.messages.add(m);
      if (m === 0) state.current.add(id);
    };
    for (let m = 0; m < window.length; m++) {
      for (const layer of this.layers) await this.termHits(layer, window[m]!, m, options, note);
      this.patternHits(window[m]!, m, options, note);
    }
    const cards = [...perCard].map(([index, state]) => ({
      card: index,
      score: state.terms.size + state.current.size,
      hits: [...new Set(state.terms.values())],
      trigger: Math.min(...state.messages),
      found: state.messages,
    }));
    return { window, cards };
  }

  /** The automaton's hits in message `m`, kept for each card whose window, case and word rules allow. */
  private async termHits(
    layer: Layer,
    msg: WindowMessage,
    m: number,
    options: MatchOptions,
    note: Note,
  ): Promise<void> {
    const { texts, cardStart, cardList } = layer.table;
    const hits = layer.automaton.hitsOf(msg.folded);
    // A card counts a term once per message; a case-sensitive verdict covers the whole message. Keyed
    // by a number (card, then term), not a string made per hit.
    const settled = new Set<number>();
    for (const hit of hits) {
      const term = texts.at(hit.term)!;
      for (let c = cardStart[hit.term]!; c < cardStart[hit.term + 1]!; c++) {
        if (layer.hidden?.has(cardList[c]!)) continue;
        const index = layer.offset + cardList[c]!;
        const once = index * cardStart.length + hit.term;
        if (settled.has(once)) continue;
        const card = this.cards.at(index);
        // A card whose file went away after this matcher was made is not found: it cannot fire.
        if (card === undefined || m >= windowSize(card, options)) continue;
        const rules = rulesOf(card);
        if (rules.caseSensitive) {
          settled.add(once);
          if (await writtenIn(card, rules, term, msg, options)) note(index, hit.term, term, m);
        } else if (
          // Most hits need no cut of the message: those are answered without a wait.
          wordVerdict(msg, "folded", hit, term, wordRule(rules.wholeWords, options), options.segmenter) ??
          (await isWholeToken(msg, hit, options.segmenter))
        ) {
          settled.add(once);
          note(index, hit.term, term, m);
        }
      }
    }
  }

  /** The regex keys matching message `m`, kept for each card whose window reaches that far. */
  private patternHits(msg: WindowMessage, m: number, options: MatchOptions, note: Note): void {
    for (const layer of this.layers) {
      if (layer.table.regexCards.length === 0) continue;
      for (const { card, key, written, pattern } of this.regexScan(layer).matching(msg.raw)) {
        if (layer.hidden?.has(card)) continue;
        const index = layer.offset + card;
        const meta = this.cards.at(index);
        if (meta === undefined || m >= windowSize(meta, options)) continue;
        const compiled = compilePattern(pattern);
        const text = ("regex" in compiled ? firstMatch(compiled.regex, msg.raw) : null) ?? "";
        note(index, `re:${key}`, text.length > 0 ? fold(text) : written, m);
      }
    }
  }

  /**
   * The regex keys of a layer's regex cards in one scan (its own card numbers), built on the first
   * lookup that needs it and kept with the layer's table: the next version of a server's matcher
   * shares the snapshot's layer, and a save does not compile every regex key of the vault again.
   */
  private regexScan(layer: Layer): RegexScan {
    let scan = regexScans.get(layer.table);
    if (scan) return scan;
    const keys: RegexKey[] = [];
    for (const card of layer.table.regexCards) {
      const meta = this.cards.at(layer.offset + card);
      if (meta === undefined) continue;
      const rules = rulesOf(meta);
      cardPatterns(meta).forEach((written, key) => {
        const pattern = keySource(written, rules);
        if (pattern) keys.push({ card, key, written: written.trim(), pattern });
      });
    }
    scan = new RegexScan(keys);
    regexScans.set(layer.table, scan);
    return scan;
  }
}

/** Each layer's regex scan, by its table (a table's card numbers always name the same cards). */
const regexScans = new WeakMap<TermTable, RegexScan>();

type Note = (card: number, id: number | string, text: string, m: number) => void;

/**
 * A case-sensitive card's term `folded` counts in `msg` only when one of the card's own spellings
 * folding to it is written with that exact case in the raw message (and stands as its word rule says).
 */
async function writtenIn(
  card: MatchCard,
  rules: CardRules,
  folded: string,
  msg: WindowMessage,
  options: MatchOptions,
): Promise<boolean> {
  for (const spelling of plainSpellings(card, rules)) {
    if (fold(spelling) !== folded) continue;
    if (await occursIn(msg, "raw", spelling, wordRule(rules.wholeWords, options), options.segmenter))
      return true;
  }
  return false;
}

interface CardState {
  /** Term id (automaton) or `re:k` (the card's k-th pattern) → the text it hit, first seen. */
  terms: Map<number | string, string>;
  current: Set<number | string>;
  messages: Set<number>;
}

/** Fired cards in order: score ↓, priority ↓, title, kind, key (so no two cards ever tie). */
export function compareMatches(
  ca: MatchCard,
  a: Pick<CardMatch, "score">,
  cb: MatchCard,
  b: Pick<CardMatch, "score">,
): number {
  if (a.score !== b.score) return b.score - a.score;
  if (ca.priority !== cb.priority) return cb.priority - ca.priority;
  if (ca.title !== cb.title) return ca.title < cb.title ? -1 : 1;
  if (ca.kind !== cb.kind) return ca.kind < cb.kind ? -1 : 1;
  return ca.key < cb.key ? -1 : ca.key > cb.key ? 1 : 0;
}
