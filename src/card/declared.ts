/**
 * The size of the declared half (seed 004: always-on cards and cards asked for, sent whole every turn
 * and never counted against a budget, recall/stages/budget.ts): since nothing trims it, a person is told when
 * it alone is large (over DEFAULTS.declaredWarnTokens a turn) instead of finding a budget ignored.
 * `check` and an import weigh the vault's always-on cards; `try` and `/api/try` the declared cards of
 * the recall. Tokens are estimated (a CJK-aware count: about 4 characters a token in spaced scripts,
 * 0.75 tokens a Chinese or Japanese character), which is close enough to say "large" without loading a
 * tokenizer.
 */

import { DEFAULTS } from "../defaults.ts";
import { cardHeading } from "./heading.ts";
import { rulesOf } from "./rules.ts";
import type { CardMeta } from "./types.ts";

const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/** An estimate of the tokens `text` costs. */
export function estimateTokens(text: string): number {
  const cjk = text.match(UNSPACED)?.length ?? 0;
  return Math.ceil((text.length - cjk) / 4 + cjk * 0.75);
}

export interface DeclaredSize {
  cards: number;
  /** Estimated tokens of their text together. */
  tokens: number;
}

/** The size of cards' texts together. */
export function declaredSize(texts: readonly string[]): DeclaredSize {
  return { cards: texts.length, tokens: texts.reduce((n, t) => n + estimateTokens(t), 0) };
}

/**
 * The sentence to say when the declared half is large, or undefined when it is not. `what` names it
 * (the always-on cards of a vault, or the declared cards of one recall).
 */
export function declaredWarning(size: DeclaredSize, what: string): string | undefined {
  const limit = DEFAULTS.declaredWarnTokens;
  if (size.tokens <= limit) return undefined;
  return (
    `${what} (${size.cards} card${size.cards === 1 ? "" : "s"}) come to about ${size.tokens.toLocaleString("en")} tokens ` +
    `every turn, over ${limit.toLocaleString("en")}: no budget trims them, so each turn sends them whole. ` +
    "Make some `context: automatic` (sent when named) or shorten them"
  );
}

/**
 * The warning about a vault's always-on cards (enabled, sent automatically), `text` giving each one's
 * public text; undefined when together they are not large. `check` and an import say it, weighing each
 * card as recall sends it (its heading line, then its text), the count `try` gives for the same cards.
 */
export function alwaysOnWarning(
  cards: readonly CardMeta[],
  text: (card: CardMeta) => string | undefined,
): string | undefined {
  const always = cards.filter((c) => c.enabled && c.inject && rulesOf(c).policy === "always");
  const sent = always.map((c) => `${cardHeading(c.title, c.kind)}\n${(text(c) ?? "").trim()}\n`);
  return declaredWarning(declaredSize(sent), "The always-on cards");
}
