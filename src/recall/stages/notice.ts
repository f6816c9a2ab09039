/**
 * Stage: notice, the automaton over the scan window (match/), each card's own window and word rules
 * → one selection entry per card hit, with its terms, score and where it was found. Every entry starts
 * as `fired`, come in by its words (`named`); the later stages decide (policy.ts first). The reach pass
 * (reach.ts) calls it again on fired cards' text.
 */
import { rulesOf } from "../../card/rules.ts";
import type { CardMeta } from "../../card/types.ts";
import type { MatchOptions, WindowMessage } from "../../match/index.ts";
import type { Compiled } from "../_compiled.ts";
import type { Fired } from "../selection.ts";

/** What the later stages need to know about the scan: the window read, and how. */
export interface Scan {
  window: readonly WindowMessage[];
  options: MatchOptions;
}

/** A card's id: `kind/key`, and `book:kind/key` for a card of a book other than the vault's own. */
export function idOf(card: Pick<CardMeta, "kind" | "key" | "book">): string {
  return card.book === undefined ? `${card.kind}/${card.key}` : `${card.book}:${card.kind}/${card.key}`;
}

/** The cards hit in `messages` (oldest first; the last is the current message), in first-hit order. */
export async function notice(
  compiled: Compiled,
  messages: readonly string[],
  options: MatchOptions,
): Promise<{ scan: Scan; selection: Fired[] }> {
  const { cards } = compiled.loaded;
  const noticed = await compiled.loaded.matcher.notice(messages, options);
  const selection = noticed.cards.map((n): Fired => {
    const card = cards.at(n.card)!;
    return {
      id: idOf(card),
      card,
      hits: n.hits,
      score: n.score,
      found: n.found,
      trigger: messages[messages.length - 1 - n.trigger] ?? "",
      verdict: "fired",
      via: "named",
      policy: rulesOf(card).policy,
    };
  });
  return { scan: { window: noticed.window, options }, selection };
}
