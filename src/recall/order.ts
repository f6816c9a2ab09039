/**
 * Stage 4, order: the order cards are weighed in by the budget and shown in: score ↓ (distinct terms
 * hit, plus one per term in the current message), priority ↓, title, kind — the matcher's own order
 * (match/ `compareMatches`), so a recall and a bare match agree. The sort is stable: cards that tie on
 * all four keep the order they were first hit in.
 */
import { compareMatches } from "../match/index.ts";
import type { Selected, Selection } from "./types.ts";

export function order(selection: Selection): Selected[] {
  return [...selection].sort((a, b) => compareMatches(a.card, a, b.card, b));
}
