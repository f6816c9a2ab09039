/**
 * match/ owns pure matching: case folding, the one Aho–Corasick automaton over every card's terms
 * (and its on-disk snapshot), the scan window, whole-token rules for one-character terms with jieba
 * segmentation for Han and kana, secondary all/any/not, scoring and order, and candidate keywords.
 * It takes cards and text and returns hits; it never reads a vault, renders a card or keeps state
 * between calls (the only thing it loads is the segmenter, on first need).
 */
export { Automaton, type AutomatonHit } from "./automaton.ts";
export { type CandidateContext, findCandidates } from "./candidates.ts";
export { charCount, fold, hasUnspaced, isWordCharAt } from "./fold.ts";
export {
  type CardMatch,
  type CardNotice,
  type CardSource,
  cardTerms,
  compareMatches,
  type MatchCard,
  Matcher,
  type MatchOptions,
  type Noticed,
  type TermTable,
} from "./matcher.ts";
export { type Veto, vetoOf } from "./secondary.ts";
export { jiebaSegmenter, type Segmenter } from "./segment.ts";
export { loadSnapshot, type Snapshot, saveSnapshot } from "./snapshot.ts";
export type { WindowMessage } from "./window.ts";
