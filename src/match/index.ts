/**
 * match/ owns pure matching: case folding, the one Aho–Corasick automaton over every card's terms
 * (and its on-disk snapshot), regular-expression keys (re2js: gated by their required literals or run
 * in sets), the scan window, case and whole-word rules with jieba segmentation for Han and kana,
 * secondary all/any/not/not_all and the V3 key decorators, scoring and order, and candidate keywords.
 * It takes cards and text and returns hits; it never reads a vault, renders a card or keeps state
 * between calls (the only thing it loads is the segmenter, on first need).
 */
export { findIn, PackedStrings, type Strings } from "./_packed.ts";
export { Automaton, type AutomatonHit } from "./automaton.ts";
export { type CandidateContext, type Candidates, findCandidates } from "./candidates.ts";
export { charCount, fold, hasUnspaced, isWordCharAt } from "./fold.ts";
export {
  buildLayer,
  type CardMatch,
  type CardNotice,
  type CardSource,
  compareMatches,
  type Layer,
  type MatchCard,
  Matcher,
  type MatchOptions,
  type Noticed,
} from "./matcher.ts";
export { type KeyPattern, keyPattern, type PatternRules } from "./pattern.ts";
export { type Veto, vetoOf, type WordStop, wordIn } from "./secondary.ts";
export { jiebaSegmenter, type Segmenter } from "./segment.ts";
export { threadSegmenter } from "./segment-thread.ts";
export { loadSnapshot, type Snapshot, saveSnapshot } from "./snapshot.ts";
export { cardPatterns, cardTerms, type TermTable } from "./table.ts";
export { type WindowMessage, windowSize } from "./window.ts";
