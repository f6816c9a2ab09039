/**
 * The rules that can stop a card whose terms were hit (README "How matching works"): its policy and
 * `inject: false`, and its other words — `secondary` all / any / not / not_all, and the V3 decorators
 * `@@additional_keys` (each line: one of its words in the window) and `@@exclude_keys` (none of them
 * there). Every word is compared as the card compares its terms: its case rule, its whole-word rule,
 * and `/pattern/flags` or `regex: true` making it a regular expression (SillyTavern reads secondary
 * keys exactly as it reads primary ones).
 */
import { rulesOf } from "../card/rules.ts";
import type { CardRules, Secondary } from "../card/types.ts";
import { fold } from "./fold.ts";
import type { MatchCard } from "./matcher.ts";
import { firstMatch, keyPattern } from "./pattern.ts";
import { type MatchOptions, occursIn, type WindowMessage, windowSize, wordRule } from "./window.ts";

/**
 * The word rule that stopped a card, checked in this order: `all` (`words`: the one missing), `any`
 * (none of `words` there), `not` (the one there, in a message that named the card), `not_all` (all of
 * `words` there), `additional_keys` (none of the line's `words` there), `exclude_keys` (the one there).
 */
export interface WordStop {
  rule: "all" | "any" | "not" | "not_all" | "additional_keys" | "exclude_keys";
  words: string[];
}

/**
 * Why a hit card does not fire: `not_automatic` (`manual` or `inject: false`), `never`, or its
 * secondary words (`secondary`, `@@additional_keys`, `@@exclude_keys`), with the rule that stopped it.
 */
export type Veto = { reason: "not_automatic" | "never" } | { reason: "secondary"; stop: WordStop };

/**
 * The veto on a card whose terms were found in the window messages `found` (0 = current), or null
 * when it fires. `window` is the whole scan window; the card's own window is cut from it here. An
 * `always` card is never stopped by words: it is in whatever the text says (SillyTavern's constant
 * entries skip the key checks entirely).
 */
export async function vetoOf(
  card: MatchCard,
  found: ReadonlySet<number>,
  window: readonly WindowMessage[],
  options: MatchOptions,
): Promise<Veto | null> {
  const rules = rulesOf(card);
  if (rules.policy === "always") return null;
  if (rules.policy === "never") return { reason: "never" };
  if (!card.inject || rules.policy === "manual") return { reason: "not_automatic" };
  const own = window.slice(0, windowSize(card, options));
  const stop = await wordStop(card, rules, own, found, options);
  return stop === null ? null : { reason: "secondary", stop };
}

/**
 * True when `word` occurs in `msg` under the card's rules: a pattern runs on the text as written; a
 * case-sensitive word is looked for as written, any other folded; then the whole-word rule.
 * An invalid pattern never occurs.
 */
export async function wordIn(
  word: string,
  rules: CardRules,
  msg: WindowMessage,
  options: Pick<MatchOptions, "segmenter" | "prose">,
): Promise<boolean> {
  const pattern = keyPattern(word, rules);
  if (pattern) return "regex" in pattern && firstMatch(pattern.regex, msg.raw) !== null;
  const trimmed = word.trim();
  const rule = wordRule(rules.wholeWords, options);
  if (rules.caseSensitive) return occursIn(msg, "raw", trimmed, rule, options.segmenter);
  return occursIn(msg, "folded", fold(trimmed), rule, options.segmenter);
}

const NO_SECONDARY: Secondary = { all: [], any: [], not: [], notAll: [] };

/** The first of the card's word rules that stops it in its own window, or null when none does. */
async function wordStop(
  card: MatchCard,
  rules: CardRules,
  window: readonly WindowMessage[],
  hitMessages: ReadonlySet<number>,
  options: MatchOptions,
): Promise<WordStop | null> {
  // The card spec (§8.2.2) ignores secondary keys on a `use_regex` entry (`regex: true` here).
  const { all, any, not, notAll } = rules.regex ? NO_SECONDARY : card.secondary;
  const inWindow = async (word: string) => {
    for (const m of window) if (await wordIn(word, rules, m, options)) return true;
    return false;
  };
  const firstInWindow = async (words: readonly string[]) => {
    for (const word of words) if (await inWindow(word)) return word;
    return undefined;
  };
  const everyInWindow = async (words: readonly string[]) => {
    for (const word of words) if (!(await inWindow(word))) return false;
    return true;
  };
  for (const word of all) if (!(await inWindow(word))) return { rule: "all", words: [word] };
  if (any.length > 0 && (await firstInWindow(any)) === undefined) return { rule: "any", words: any };
  for (const word of not) {
    for (const m of hitMessages) {
      const msg = window[m];
      if (msg && (await wordIn(word, rules, msg, options))) return { rule: "not", words: [word] };
    }
  }
  // NOT ALL (SillyTavern selectiveLogic 1): stopped only when every one of its words is in the window.
  if (notAll.length > 0 && (await everyInWindow(notAll))) return { rule: "not_all", words: notAll };
  for (const line of rules.additionalKeys) {
    if (line.length > 0 && (await firstInWindow(line)) === undefined)
      return { rule: "additional_keys", words: line };
  }
  // The card spec ignores `@@exclude_keys` on a `use_regex` entry.
  const excluded = rules.regex ? undefined : await firstInWindow(rules.excludeKeys);
  return excluded === undefined ? null : { rule: "exclude_keys", words: [excluded] };
}
