/**
 * The recall and adoption rules of the Store contract, written once (as `_rules.ts` is for commits):
 * - a recall is stored in its normal form: ids cut to `MAX_ID_CHARS`, each card once, the first
 *   `cardsPerRecall` of them; the first record of a (session, query) wins;
 * - each new recall drops those older than `recallDays` before it, then the oldest beyond `recalls`
 *   (by time, then query id, then session), each with its adoptions;
 * - an adoption counts once per recall and card, and only for a card the recall listed;
 * - a card's use in a window is tallied from the recalls in it: listed, opened, last listed, last opened.
 * Pure: a backend reads what these need and applies what they return.
 */

import type { AdoptionOutcome, CardUsage, Limits, RecallRecord, StoredRecall, UsageWindow } from "./types.ts";

/** Session and query ids longer than this are cut: an id is a name, never a payload. */
export const MAX_ID_CHARS = 256;

const DAY_MS = 86_400_000;

/** The stored form of a recall (the ids cut, each card once, the first `cardsPerRecall`). */
export function normalRecall(record: RecallRecord, limits: Limits): RecallRecord {
  return {
    session: record.session.slice(0, MAX_ID_CHARS),
    query: record.query.slice(0, MAX_ID_CHARS),
    at: record.at,
    surface: record.surface,
    cards: [...new Set(record.cards)].slice(0, Math.max(0, limits.cardsPerRecall)),
  };
}

/** The ids an adoption names, cut the way a recall's are, so the two meet. */
export function normalIds(session: string, query: string): { session: string; query: string } {
  return { session: session.slice(0, MAX_ID_CHARS), query: query.slice(0, MAX_ID_CHARS) };
}

/** Recalls recorded before this time are dropped when one at `at` is recorded. */
export function keptSince(at: number, limits: Limits): number {
  return at - limits.recallDays * DAY_MS;
}

/** Which recall the cap drops first: the oldest, then the smallest query id, then session. */
export function byOldest(
  a: Pick<RecallRecord, "at" | "query" | "session">,
  b: Pick<RecallRecord, "at" | "query" | "session">,
): number {
  return a.at - b.at || compareText(a.query, b.query) || compareText(a.session, b.session);
}

/** What an adoption of `card` does to the recall stored under its ids (null: none is). */
export function adoptionOutcome(
  stored: Pick<StoredRecall, "cards" | "opened"> | null,
  card: string,
): AdoptionOutcome {
  if (stored === null) return "unknown_query";
  if (!stored.cards.includes(card)) return "not_listed";
  return card in stored.opened ? "repeated" : "recorded";
}

/** Per card, what the given recalls (those of one window) say of it; cards by id. */
export function tallyUsage(recalls: readonly Pick<StoredRecall, "at" | "cards" | "opened">[]): UsageWindow {
  const byCard = new Map<string, CardUsage>();
  for (const r of recalls) {
    for (const card of r.cards) {
      const u = byCard.get(card) ?? { card, recalled: 0, opened: 0, lastRecalled: r.at, lastOpened: null };
      u.recalled++;
      u.lastRecalled = Math.max(u.lastRecalled, r.at);
      const opened = r.opened[card];
      if (opened !== undefined) {
        u.opened++;
        u.lastOpened = Math.max(u.lastOpened ?? opened, opened);
      }
      byCard.set(card, u);
    }
  }
  return {
    recalls: recalls.length,
    cards: [...byCard.values()].sort((a, b) => compareText(a.card, b.card)),
  };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
