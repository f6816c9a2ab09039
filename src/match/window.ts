/**
 * The scan window and the word rules shared by term hits and secondary words: messages kept as written
 * and folded once, newest first; how many of them a card reads; and whether an occurrence counts under
 * the card's `whole_words` (for a one-character term by our default, a whole token: plain between
 * spaces or punctuation, jieba segmentation inside Han or kana text, loaded only when such a decision
 * comes up; with `whole_words: true`, SillyTavern's rule).
 */
import type { CardRules } from "../card/types.ts";
import { TextMemo } from "../text-memo.ts";
import { type Cuts, cutsOf } from "./_cuts.ts";
import { charCount, fold, isWordCharAt, UNSPACED } from "./fold.ts";
import type { Segmenter } from "./segment.ts";

export interface MatchOptions {
  /** Turns of history in the window when a card has no `scan_depth` of its own. */
  scanDepth: number;
  /** Loads a segmenter when a word decision falls inside Han or kana text; absent = no segmentation. */
  segmenter?: () => Promise<Segmenter>;
  /**
   * The text is a card's prose (reach), not the person's words: a card with our default word rule
   * (`whole_words` unset) is found there only by whole words, whatever the term's length, segmented
   * inside Han or kana text, so a short alias (`Al`) is not found inside "call". The person's own words
   * keep the substring rule; a card's explicit `whole_words` holds in both.
   */
  prose?: boolean;
}

/**
 * How an occurrence counts: `false` any substring; `null` (ours, for the person's words) a whole token
 * only for a one-character term; `"token"` (ours, in a card's prose) a whole token for every term;
 * `true` SillyTavern's whole-word rule.
 */
export type WordRule = boolean | null | "token";

/** The word rule of a card's `whole_words` in this scan (see MatchOptions.prose). */
export function wordRule(wholeWords: boolean | null, options: Pick<MatchOptions, "prose">): WordRule {
  return wholeWords === null && options.prose ? "token" : wholeWords;
}

/**
 * A message of the window: as written (`raw`, for case-sensitive cards and regular expressions) and
 * folded once (for the automaton). Index 0 of a window is the current message. The token boundaries
 * of each form are computed on first need.
 */
export interface WindowMessage {
  raw: string;
  folded: string;
  boundaries?: Cuts;
  rawBoundaries?: Cuts;
}

/** Which form of a message an occurrence was found in. */
export type Side = "folded" | "raw";

/**
 * Messages folded lately: a message is folded again on every turn it stays in the window (NFKC and
 * two case mappings of the whole text). About 2 MB of texts at most, half of them the folded forms.
 */
const folds = new TextMemo<string>(500_000, 64_000);

/** The last `count` messages, newest first. */
export function newestFirst(messages: readonly string[], count: number): WindowMessage[] {
  const out: WindowMessage[] = [];
  for (let i = messages.length - 1; i >= 0 && out.length < count; i--) {
    out.push({ raw: messages[i]!, folded: folds.get(messages[i]!, fold) });
  }
  return out;
}

/**
 * How many window messages a card reads: its `scan_messages` (counted in messages, the current one
 * included; 0 = none), else 1 + 2 × its `scan_depth` turns, else the caller's depth in turns.
 */
export function windowSize(
  card: { scanDepth: number | null; rules?: Pick<CardRules, "scanMessages"> },
  options: Pick<MatchOptions, "scanDepth">,
): number {
  const messages = card.rules?.scanMessages;
  if (messages !== null && messages !== undefined) return Math.max(0, messages);
  return 1 + 2 * (card.scanDepth ?? options.scanDepth);
}

/** Turns of history a window of `messages` messages needs (the inverse of 1 + 2 × depth, rounded up). */
export function turnsFor(messages: number): number {
  return Math.max(0, Math.ceil((messages - 1) / 2));
}

/**
 * Whether a match of `term` found at [start, end) counts as a word under `rule` (WordRule): false = any
 * substring; null (ours) = a whole token only for a one-character term; "token" = a whole token; true
 * = SillyTavern's whole-word rule, exactly: a term of several space-separated words matches as written, any other
 * needs a character that is no ASCII letter, digit or underscore (or the text's edge) on each side.
 * So in Chinese or Japanese text, where every character is such a boundary to SillyTavern, a
 * `whole_words` key matches wherever it occurs, as authors of those books saw it do.
 * Answered at once, or undefined when it takes the segmenter's cuts of the message and they are not
 * made yet (`isWholeToken` then waits for them): the automaton's hits are many per message and most
 * need no cut, so a promise and a wait for each cost more than the answer.
 */
export function wordVerdict(
  msg: WindowMessage,
  side: Side,
  at: { start: number; end: number },
  term: string,
  rule: WordRule,
  segmenter: MatchOptions["segmenter"],
): boolean | undefined {
  if (rule === false) return true;
  if (rule === true) return /\s/u.test(term) || asciiBounded(msg[side], at);
  if (rule === null && charCount(term) > 1) return true;
  return tokenVerdict(msg, at, segmenter, side);
}

const ASCII_WORD = /[A-Za-z0-9_]/;

function asciiBounded(text: string, at: { start: number; end: number }): boolean {
  return !ASCII_WORD.test(text[at.start - 1] ?? "") && !ASCII_WORD.test(text[at.end] ?? "");
}

/** True when `needle` (already in the form of `side`) occurs in the message and counts as a word. */
export async function occursIn(
  msg: WindowMessage,
  side: Side,
  needle: string,
  rule: WordRule,
  segmenter: MatchOptions["segmenter"],
): Promise<boolean> {
  if (needle.length === 0) return false;
  const text = msg[side];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    const span = { start: at, end: at + needle.length };
    const counts =
      wordVerdict(msg, side, span, needle, rule, segmenter) ??
      (await isWholeToken(msg, span, segmenter, side));
    if (counts) return true;
  }
  return false;
}

/**
 * The match at [start, end) stands as a whole token. Between spaces or punctuation that is plain;
 * inside Han or kana text it takes a segmenter, and without one it is not a token there.
 */
export async function isWholeToken(
  msg: WindowMessage,
  at: { start: number; end: number },
  segmenter: MatchOptions["segmenter"],
  side: Side = "folded",
): Promise<boolean> {
  const verdict = tokenVerdict(msg, at, segmenter, side);
  if (verdict !== undefined) return verdict;
  // tokenVerdict answers when there is no segmenter.
  const text = msg[side];
  let cuts: Cuts;
  if (side === "raw") {
    msg.rawBoundaries ??= await cutsOf(text, segmenter!);
    cuts = msg.rawBoundaries;
  } else {
    msg.boundaries ??= await cutsOf(text, segmenter!);
    cuts = msg.boundaries;
  }
  return cuts.has(at.start) && cuts.has(at.end);
}

/** `isWholeToken` without waiting: undefined when it takes cuts of the message not made yet. */
function tokenVerdict(
  msg: WindowMessage,
  at: { start: number; end: number },
  segmenter: MatchOptions["segmenter"],
  side: Side,
): boolean | undefined {
  const text = msg[side];
  const before = isWordCharAt(text, at.start - 1);
  const after = isWordCharAt(text, at.end);
  if (!before && !after) return true;
  const neighbours = text.slice(Math.max(0, at.start - 1), at.end + 1);
  if (!segmenter || !UNSPACED.test(neighbours)) return false;
  const cuts = side === "raw" ? msg.rawBoundaries : msg.boundaries;
  if (cuts === undefined) return undefined;
  return cuts.has(at.start) && cuts.has(at.end);
}
