/**
 * The turn-record rules of the Store contract, written once (as `_rules.ts` is for commits):
 * - a record replaces the one of its turn (the message was edited and sent again, a client's side
 *   request such as Claude Code's title request went first, or the conversation started a new clock),
 *   and keeps the usage already billed for the turn that day (with its request count and blame), so a
 *   conversation's turns add up to what its day counts; a record of an earlier day is left to that
 *   day, and the new one starts with no usage;
 * - every response's usage adds to its turn's record (a retry, a regenerate and each request of a
 *   tool loop are billed, each of them), and usage alone makes a bare record;
 * - blame is worked out from the first usage of a record (the request that carried its blocks) and
 *   kept after;
 * - a conversation keeps the records of its highest turns;
 * - every change moves the record's share of its day by the difference it makes.
 * A backend reads the stored record of the turn and the turn numbers kept, and applies the plan.
 */

import type { ConversationRow } from "./_rules.ts";
import { blameFor, dayOf, type Share, shareOf } from "./stats.ts";
import type { Limits, TurnRecord, Usage } from "./types.ts";

/** What a turn write needs to know: the record stored for that turn, and every turn kept. */
export interface StoredTurns {
  old: TurnRecord | null;
  turns: readonly number[];
}

export interface TurnPlan {
  /** The record to store in place of the one of its turn; null when it falls below the cap. */
  put: TurnRecord | null;
  /** Turns to drop: beyond the cap. Their shares stay in their days. */
  drop: number[];
  /** Shares to add to days, in order (a record's own earlier share is taken back first). */
  days: { day: string; share: Share; sign: 1 | -1 }[];
}

export function planTurn(stored: StoredTurns, record: TurnRecord, limits: Limits): TurnPlan {
  const { usage: _none, requests: _n, blame: _b, ...fresh } = record;
  const old = stored.old;
  // A record of an earlier day leaves that day as it was: its cost stays there, the new one starts bare.
  if (!old?.usage || dayOf(old.at) !== dayOf(record.at)) return plan({ ...stored, old: null }, fresh, limits);
  const billed = { usage: old.usage, requests: old.requests ?? 1, ...(old.blame && { blame: old.blame }) };
  return plan(stored, { ...fresh, ...billed }, limits);
}

export function planUsage(
  stored: StoredTurns,
  at: { conversation: string; turn: number; at: number },
  usage: Usage,
  limits: Limits,
): TurnPlan {
  const old = stored.old ?? bareRecord(at.conversation, at.turn, at.at);
  if (!old.usage) return plan(stored, withBlame({ ...old, usage, requests: 1 }), limits);
  const sum = {
    uncached: old.usage.uncached + usage.uncached,
    cacheRead: old.usage.cacheRead + usage.cacheRead,
    cacheWrite: old.usage.cacheWrite + usage.cacheWrite,
    output: old.usage.output + usage.output,
  };
  return plan(stored, { ...old, usage: sum, requests: (old.requests ?? 1) + 1 }, limits);
}

/** The record of a turn known only from its usage: no blocks, nothing left out, no prompt seen. */
export function bareRecord(conversation: string, turn: number, at: number): TurnRecord {
  return {
    conversation,
    turn,
    at,
    surface: "gateway",
    blocks: [],
    replayedChars: 0,
    leftOut: [],
    promptChars: 0,
    counterfactual: { promptChars: 0, cachedChars: 0 },
    sharedChars: 0,
  };
}

/**
 * The conversation's row after a turn write: seen at `at` (the time seen only moves forward); a
 * conversation not stored yet is stored with turn 0, so the turn clock stays `commitTurn`'s.
 */
export function seenRow(row: ConversationRow | null, at: number): ConversationRow {
  if (row === null) return { turn: 0, lastSeen: at, opening: null, timed: null };
  return { ...row, lastSeen: Math.max(row.lastSeen, at) };
}

/** `stored.old`: the record `next` grows from, whose share it takes over (null: a record of its own). */
function plan(stored: StoredTurns, next: TurnRecord, limits: Limits): TurnPlan {
  const cap = Math.max(0, limits.turnsPerConversation);
  const turns = new Set(stored.turns).add(next.turn);
  // Within the cap every turn stays: only past it is the sort that picks the newest needed.
  const keep = turns.size <= cap ? turns : new Set([...turns].sort((a, b) => b - a).slice(0, cap));
  if (!keep.has(next.turn)) return { put: null, drop: [], days: [] };
  const put = next;
  const days: TurnPlan["days"] = [];
  if (stored.old) days.push({ day: dayOf(stored.old.at), share: shareOf(stored.old), sign: -1 });
  days.push({ day: dayOf(put.at), share: shareOf(put), sign: 1 });
  return { put, drop: stored.turns.filter((t) => !keep.has(t)), days };
}

function withBlame(record: TurnRecord): TurnRecord {
  const { blame: _given, ...rest } = record;
  const blame = blameFor(rest);
  return blame ? { ...rest, blame } : rest;
}

/** The order records are listed in: by turn (then time). */
export function byTurnNumber(a: TurnRecord, b: TurnRecord): number {
  return a.turn - b.turn || a.at - b.at;
}

/** The order `turnsSince` lists in: by time, then conversation, then turn. */
export function byTime(a: TurnRecord, b: TurnRecord): number {
  return (
    a.at - b.at ||
    (a.conversation < b.conversation ? -1 : a.conversation > b.conversation ? 1 : 0) ||
    a.turn - b.turn
  );
}
