/**
 * Turn records and per-day totals in a state file (the `turns` and `days` tables, _sqlite-file.ts):
 * each write reads what the turn rules need (_turn-rules.ts) and applies their plan, inside the
 * caller's transaction; the reads turn rows back into records and totals.
 */

import { type Connection, putRow, rowOf } from "./_sqlite-file.ts";
import { planTurn, planUsage, seenRow, type TurnPlan } from "./_turn-rules.ts";
import { addShare, dayTotals, emptyShare, type Share } from "./stats.ts";
import type { ConversationSummary, DayTotals, Limits, TurnRecord, Usage } from "./types.ts";

/** Stores `record`; true when it stored its conversation for the first time (the cap then applies). */
export function recordTurn(c: Connection, record: TurnRecord, limits: Limits): boolean {
  return writeTurn(c, record.conversation, record.at, (stored) =>
    planTurn(stored(record.turn), record, limits),
  );
}

/** Stores a turn's usage (a bare record when it has none); true as for `recordTurn`. */
export function recordUsage(
  c: Connection,
  at: { conversation: string; turn: number; at: number },
  usage: Usage,
  limits: Limits,
): boolean {
  return writeTurn(c, at.conversation, at.at, (stored) => planUsage(stored(at.turn), at, usage, limits));
}

export function readTurns(c: Connection, conversation: string, limit: number): TurnRecord[] {
  return c.q.turns.all(conversation, limit).map((r) => turnRecord(conversation, r.record));
}

export function readConversations(c: Connection, limit: number): ConversationSummary[] {
  return c.q.withTurns.all(limit).map((r) => ({
    id: r.id,
    surface: r.surface as TurnRecord["surface"],
    turns: r.turns,
    lastSeen: r.last_seen,
  }));
}

export function readTurnsSince(c: Connection, since: number): TurnRecord[] {
  return c.q.turnsSince.all(since).map((r) => turnRecord(r.id, r.record));
}

/** Days with at least one turn (a day whose only record moved away holds none). */
export function readDays(c: Connection, sinceDay: string): DayTotals[] {
  return c.q.days
    .all(sinceDay)
    .map((r) => ({ day: r.day, share: JSON.parse(r.totals) as Share }))
    .filter((d) => d.share.turns > 0)
    .map((d) => dayTotals(d.day, d.share));
}

/** The stored record of a turn (given its number) and every turn kept, for the turn rules. */
type StoredTurnsOf = (turn: number) => { old: TurnRecord | null; turns: number[] };

/**
 * One turn write: the conversation seen (stored with turn 0 if new), the plan applied, its shares
 * added to their days. True when it stored the conversation for the first time (the cap then applies).
 */
function writeTurn(
  c: Connection,
  id: string,
  at: number,
  plan: (stored: StoredTurnsOf) => TurnPlan,
): boolean {
  const row = rowOf(c, id);
  const n = putRow(c, id, seenRow(row, at));
  const p = plan((turn) => {
    if (row === null) return { old: null, turns: [] };
    const old = c.q.turn.get(n, turn);
    return { old: old && turnRecord(id, old.record), turns: c.q.turnNumbers.all(n).map((t) => t.turn) };
  });
  for (const t of p.drop) c.q.dropTurn.run(n, t);
  if (p.put) {
    const { conversation: _id, ...stored } = p.put;
    c.q.putTurn.run(n, p.put.turn, p.put.at, p.put.surface, JSON.stringify(stored));
  }
  for (const d of p.days) {
    const before = c.q.day.get(d.day);
    const share = before ? (JSON.parse(before.totals) as Share) : emptyShare();
    c.q.putDay.run(d.day, JSON.stringify(addShare(share, d.share, d.sign)));
  }
  return row === null;
}

function turnRecord(conversation: string, text: string): TurnRecord {
  return { conversation, ...(JSON.parse(text) as Omit<TurnRecord, "conversation">) };
}
