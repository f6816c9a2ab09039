/**
 * Stage: order, how close each card is to the person's own words, which is the order the budget
 * keeps them in (and so drops them from the end: farthest first, README "Budget"). Four tiers:
 *   0  named in the current message (a hit at window position 0)
 *   1  named only in earlier messages
 *   2  in without being named: always on, still sticky, explicitly asked for
 *   3  reached through another card's text (one-hop reach)
 * Inside a tier, the matcher's own order (match/ `compareMatches`: score ↓, priority ↓, title, kind),
 * so a recall and a bare match agree. The sort is stable: cards that tie on everything keep the
 * order they were first hit in. Where a chosen card goes inside its block (its insertion `order`) is
 * the render stage's business, once the budget has said who is in.
 */
import { compareMatches } from "../../match/index.ts";
import type { Seen, Selected, Selection } from "../selection.ts";

/** The card's closeness tier: lower is closer to the person's words. */
export function closeness(entry: Pick<Seen, "via" | "found">): number {
  if (entry.via === "reached") return 3;
  if (entry.found.has(0)) return 0;
  if (entry.found.size > 0) return 1;
  return 2;
}

export function order(selection: Selection): Selected[] {
  return [...selection].sort((a, b) => closeness(a) - closeness(b) || compareMatches(a.card, a, b.card, b));
}
