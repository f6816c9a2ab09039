/**
 * The rules that can stop a card whose terms were hit: `inject: false` (the card never fires on its
 * own) and the secondary words (README "How matching works", `secondary`: every `all` word somewhere
 * in the card's window, one `any` word there, no `not` word in a message that hit the card). Same
 * token rules as the terms.
 */
import { charCount, fold } from "./fold.ts";
import type { MatchCard } from "./matcher.ts";
import { isWholeToken, type MatchOptions, type WindowMessage } from "./window.ts";

/** Why a hit card does not fire: `not_automatic` (`inject: false`) or its secondary words. */
export type Veto = "not_automatic" | "secondary";

/**
 * The veto on a card whose terms were found in the window messages `found` (0 = current), or null
 * when it fires. The window is the whole scan window; the card's own depth is applied here.
 */
export async function vetoOf(
  card: MatchCard,
  found: ReadonlySet<number>,
  window: readonly WindowMessage[],
  options: MatchOptions,
): Promise<Veto | null> {
  if (!card.inject) return "not_automatic";
  const limit = 2 * (card.scanDepth ?? options.scanDepth);
  if (!(await passesSecondary(card, window.slice(0, limit + 1), found, options))) return "secondary";
  return null;
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
    const hit = { term: -1, start: at, end: at + needle.length };
    if (await isWholeToken(m, hit, options.segmenter)) return true;
  }
  return false;
}

async function passesSecondary(
  card: MatchCard,
  window: readonly WindowMessage[],
  hitMessages: ReadonlySet<number>,
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
