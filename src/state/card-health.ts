/**
 * How each card of a vault fares in index recalls (README "Index mode and adoption"): from the recalls
 * of the last 30 days and what the agent opened from them, per card its recalls, its openings, when it
 * was last listed and last opened, and one class:
 *   dead             listed in no recall of the window
 *   noisy            listed in at least 10 recalls and opened from under 20% of them: it takes a line
 *                    of nearly every index and is rarely wanted (its words fire too easily)
 *   underperforming  listed in at least 3 recalls and opened from under 10% of them
 *   healthy          everything else: opened often enough, or not listed often enough to judge
 * The first that applies wins, so a noisy card is never also counted as underperforming. A window
 * with no recall at all judges nothing: every card would be dead only because index mode is off.
 * Pure: it takes the vault's card ids and the Store's `cardUsage`, and reads no clock.
 */

import { isoTime } from "../wire.ts";
import type { UsageWindow } from "./types.ts";

export const HEALTH_RULES = {
  /** The window the classes look at, in days. */
  windowDays: 30,
  noisy: { recalls: 10, openShare: 0.2 },
  underperforming: { recalls: 3, openShare: 0.1 },
} as const;

export type HealthRules = {
  windowDays: number;
  noisy: { recalls: number; openShare: number };
  underperforming: { recalls: number; openShare: number };
};

export const HEALTH_CLASSES = ["dead", "noisy", "underperforming", "healthy"] as const;
export type HealthClass = (typeof HEALTH_CLASSES)[number];

export interface CardHealth {
  /** `kind/key`. */
  card: string;
  class: HealthClass;
  /** Recalls of the window that listed it. */
  recalled: number;
  /** Of those, the ones it was opened from. */
  opened: number;
  /** `opened` ÷ `recalled`; null for a card never listed. */
  openRate: number | null;
  /** The newest recall that listed it (ms); null for none in the window. */
  lastSeen: number | null;
  /** When it was last opened (ms); null for never in the window. */
  lastOpened: number | null;
}

export interface HealthReport {
  /** The start of the window, ISO 8601. */
  since: string;
  windowDays: number;
  /** Recalls recorded in the window; 0 means nothing is judged. */
  recalls: number;
  counts: Record<HealthClass, number>;
  /** Every card given, worst class first (dead, noisy, underperforming, healthy), then by id. */
  cards: CardHealth[];
}

const DAY_MS = 86_400_000;

/** The start of the window that ends at `now`. */
export function healthSince(now: number, rules: HealthRules = HEALTH_RULES): number {
  return now - rules.windowDays * DAY_MS;
}

/** The class of one card from its figures in the window. */
export function classify(recalled: number, opened: number, rules: HealthRules = HEALTH_RULES): HealthClass {
  if (recalled === 0) return "dead";
  const share = opened / recalled;
  if (recalled >= rules.noisy.recalls && share < rules.noisy.openShare) return "noisy";
  if (recalled >= rules.underperforming.recalls && share < rules.underperforming.openShare)
    return "underperforming";
  return "healthy";
}

/**
 * The report for `cards` (the vault's ids; a card listed in the window that is no longer in the vault
 * is left out) from the window's usage starting at `since`.
 */
export function cardHealth(
  cards: readonly string[],
  usage: UsageWindow,
  since: number,
  rules: HealthRules = HEALTH_RULES,
): HealthReport {
  const counts: Record<HealthClass, number> = { dead: 0, noisy: 0, underperforming: 0, healthy: 0 };
  const base = { since: isoTime(since), windowDays: rules.windowDays, recalls: usage.recalls, counts };
  if (usage.recalls === 0) return { ...base, cards: [] };
  const byCard = new Map(usage.cards.map((u) => [u.card, u]));
  const out = [...new Set(cards)].map((card): CardHealth => {
    const u = byCard.get(card);
    const recalled = u?.recalled ?? 0;
    const opened = u?.opened ?? 0;
    const health: CardHealth = {
      card,
      class: classify(recalled, opened, rules),
      recalled,
      opened,
      openRate: recalled === 0 ? null : opened / recalled,
      lastSeen: u?.lastRecalled ?? null,
      lastOpened: u?.lastOpened ?? null,
    };
    counts[health.class]++;
    return health;
  });
  const rank = (c: HealthClass) => HEALTH_CLASSES.indexOf(c);
  out.sort((a, b) => rank(a.class) - rank(b.class) || (a.card < b.card ? -1 : a.card > b.card ? 1 : 0));
  return { ...base, cards: out };
}
