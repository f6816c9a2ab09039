/**
 * The stats report `lorecards stats`, `GET /api/stats` and the editor's panel show (README "lorecards
 * stats"): per day, the top conversations, the totals, the counterfactual and the saving, the cards
 * blamed for cache misses. Pure: it takes what the Store returned (`days`, `turnsSince`, `turns`) and
 * the window, and adds up with stats.ts. Days come from the per-day totals, which outlive
 * conversations dropped by the cap; conversations only from the records still kept.
 */

import { addShare, dayOf, dayTotals, emptyShare, type Share, shareOf, shareOfDay } from "./stats.ts";
import type { DayTotals, TurnRecord, Usage } from "./types.ts";

/** A share's numbers as people read them, with what follows from them. */
export interface Figures extends Omit<DayTotals, "day" | "blame"> {
  /** The counterfactual's cost minus the actual cost (uncached-token equivalents). */
  saving: number;
  /** `saving` ÷ the counterfactual's cost; null when that is 0. */
  savingRatio: number | null;
  /** Tokens read from the cache ÷ all input tokens; null without input. */
  cacheHitRatio: number | null;
}

export interface DayReport extends Figures {
  day: string;
}

export interface ConversationReport extends Figures {
  id: string;
  surface: TurnRecord["surface"];
  /** Time of its newest turn in the window (ms). */
  lastAt: number;
}

export interface StatsReport {
  /** The first day of the window (`YYYY-MM-DD`, UTC). */
  since: string;
  days: DayReport[];
  totals: Figures;
  /** The window's most expensive conversations (of those still kept), most expensive first. */
  conversations: ConversationReport[];
  /** Cards blamed for cache misses, most misses first. */
  blame: { card: string; misses: number }[];
}

/** The window of the last `days` UTC days, today included: its first day and that day's first ms. */
export function windowOf(now: number, days: number): { since: string; sinceAt: number } {
  const start = new Date(now);
  start.setUTCHours(0, 0, 0, 0);
  start.setUTCDate(start.getUTCDate() - Math.max(1, days) + 1);
  return { since: dayOf(start.getTime()), sinceAt: start.getTime() };
}

export function figuresOf(share: Share): Figures {
  const { day: _day, blame: _blame, ...totals } = dayTotals("", share);
  const saving = (share.counterfactualCost100 - share.cost100) / 100;
  const input = share.uncached + share.cacheRead + share.cacheWrite;
  return {
    ...totals,
    saving,
    savingRatio: share.counterfactualCost100 > 0 ? saving / totals.counterfactualCost : null,
    cacheHitRatio: input > 0 ? share.cacheRead / input : null,
  };
}

export interface ReportInput {
  since: string;
  days: readonly DayTotals[];
  turns: readonly TurnRecord[];
  /** How many conversations to list (default 10). */
  top?: number;
}

export function summarize(input: ReportInput): StatsReport {
  const days = input.days.filter((d) => d.day >= input.since);
  let total = emptyShare();
  for (const d of days) total = addShare(total, shareOfDay(d));

  const byConversation = new Map<string, { share: Share; last: TurnRecord }>();
  for (const t of input.turns) {
    if (dayOf(t.at) < input.since) continue;
    const seen = byConversation.get(t.conversation);
    const share = addShare(seen?.share ?? emptyShare(), shareOf(t));
    const last = seen && seen.last.at > t.at ? seen.last : t;
    byConversation.set(t.conversation, { share, last });
  }
  const conversations = [...byConversation]
    .map(([id, c]) => ({ id, surface: c.last.surface, lastAt: c.last.at, ...figuresOf(c.share) }))
    .sort((a, b) => b.cost - a.cost || b.lastAt - a.lastAt || (a.id < b.id ? -1 : 1))
    .slice(0, input.top ?? 10);

  return {
    since: input.since,
    days: days.map((d) => ({ day: d.day, ...figuresOf(shareOfDay(d)) })),
    totals: figuresOf(total),
    conversations,
    blame: Object.entries(total.blame)
      .map(([card, misses]) => ({ card, misses }))
      .sort((a, b) => b.misses - a.misses || (a.card < b.card ? -1 : 1)),
  };
}

/** One turn of a conversation, for `stats --conversation`. */
export interface TurnReport {
  turn: number;
  at: number;
  surface: TurnRecord["surface"];
  api?: TurnRecord["api"];
  model?: string;
  /** The cards added this turn, block by block (tier, where, cards). */
  blocks: { tier: string; where: string; cards: string[]; chars: number; early: boolean }[];
  leftOut: TurnRecord["leftOut"];
  usage?: Usage;
  figures: Figures;
  blame: string[];
}

export function turnReports(records: readonly TurnRecord[]): TurnReport[] {
  return records.map((r) => ({
    turn: r.turn,
    at: r.at,
    surface: r.surface,
    ...(r.api && { api: r.api }),
    ...(r.model && { model: r.model }),
    blocks: r.blocks.map((b) => ({
      tier: b.tier,
      where: b.where,
      cards: [...b.cards],
      chars: b.text.length,
      early: b.early === true,
    })),
    leftOut: r.leftOut.map((l) => ({ ...l })),
    ...(r.usage && { usage: { ...r.usage } }),
    figures: figuresOf(shareOf(r)),
    blame: [...(r.blame ?? [])],
  }));
}
