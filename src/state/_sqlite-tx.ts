/**
 * The rows of a state file (_sqlite-file.ts) as the driver's `Tx` (_driver.ts): one prepared
 * statement per operation, run inside whatever transaction the driver holds. The orders a query spans
 * the table with are written in SQL here, where an index serves them, each naming the rule it keeps.
 */

import type { Tx } from "./_driver.ts";
import type { ConversationRow } from "./_rules.ts";
import type { Connection, ReplayRow } from "./_sqlite-file.ts";
import { recallTx } from "./_sqlite-recalls.ts";
import { addShare, emptyShare, type Share } from "./stats.ts";
import type { CardRef, Placement, ReplayRecord, Tier, TurnRecord } from "./types.ts";

export function sqliteTx(c: Connection): Tx {
  const { q } = c;
  const rowOf = (id: string): (ConversationRow & { n: number }) | null => {
    const r = q.conversation.get(id);
    return r && { n: r.n, turn: r.turn, lastSeen: r.last_seen, opening: r.opening, timed: r.timed };
  };
  /** Stores the row; returns the conversation's number, what its other rows are keyed by. */
  const putRow = (id: string, row: ConversationRow): number =>
    q.putConversation.get(id, row.turn, row.lastSeen, row.opening, row.timed)!.n;

  return {
    load(id, sessions) {
      let lore: string | null = null;
      for (const s of sessions) {
        lore = q.lore.get(s)?.lore ?? null;
        if (lore !== null) break;
      }
      const found = rowOf(id);
      if (found === null) return { stored: null, lore };
      const { n, ...row } = found;
      const stored = {
        row,
        injections: q.injections.all(n).map((r) => ({ id: r.card, turn: r.turn, version: r.version })),
        replays: q.replays.all(n).map(toRecord),
      };
      return { stored, lore };
    },
    commitKeys(id) {
      const stored = rowOf(id);
      if (stored === null) return { row: null, injections: [], replays: [] };
      const { n, ...row } = stored;
      return { row, injections: q.injectionKeys.all(n), replays: q.replayKeys.all(n) };
    },
    putCommit(id, row, change) {
      const n = putRow(id, row);
      for (const card of change.dropInjections) q.dropInjection.run(n, card);
      for (const i of change.putInjections) q.putInjection.run(n, i.id, i.turn, i.version);
      for (const r of change.dropReplays) q.dropReplay.run(n, r.anchor, r.hash);
      const r = change.putReplay;
      if (r) {
        const cards = JSON.stringify(r.cards);
        q.putReplay.run(n, r.anchor, r.hash, r.place, r.text, r.turn, cards, r.role ?? null, r.tier ?? null);
      }
    },
    conversation(id) {
      const stored = rowOf(id);
      if (stored === null) return null;
      const { n: _n, ...row } = stored;
      return row;
    },
    putConversation: (id, row) => void putRow(id, row),
    byOpening: (opening) => q.byOpening.get(opening)?.id ?? null,
    evict(max) {
      for (const { n } of q.evict.all(max)) {
        q.dropInjections.run(n);
        q.dropReplays.run(n);
        q.dropTurns.run(n);
      }
    },

    turnKeys(id, turn) {
      const stored = rowOf(id);
      if (stored === null) return { row: null, old: null, turns: [] };
      const { n, ...row } = stored;
      const old = q.turn.get(n, turn);
      return { row, old: old && turnRecord(id, old.record), turns: q.turnNumbers.all(n).map((t) => t.turn) };
    },
    putTurn(id, row, put, drop, days) {
      const n = putRow(id, row);
      for (const t of drop) q.dropTurn.run(n, t);
      if (put) {
        const { conversation: _id, ...stored } = put;
        q.putTurn.run(n, put.turn, put.at, put.surface, JSON.stringify(stored));
      }
      for (const d of days) {
        const before = q.day.get(d.day);
        const share = before ? (JSON.parse(before.totals) as Share) : emptyShare();
        q.putDay.run(d.day, JSON.stringify(addShare(share, d.share, d.sign)));
      }
    },
    turns: (id, limit) => q.turns.all(id, limit).map((r) => turnRecord(id, r.record)),
    turnsSince: (since) => q.turnsSince.all(since).map((r) => turnRecord(r.id, r.record)),
    withTurns: (limit) =>
      q.withTurns.all(limit).map((r) => ({
        id: r.id,
        surface: r.surface as TurnRecord["surface"],
        turns: r.turns,
        lastSeen: r.last_seen,
        name: r.name,
      })),
    nameConversation: (id, name) => q.nameConversation.run(name, id).changes > 0,
    days: (sinceDay) =>
      q.days.all(sinceDay).map((r) => ({ day: r.day, share: JSON.parse(r.totals) as Share })),
    putLore(session, lore, at, keep) {
      if (lore === null) q.dropLore.run(session);
      else q.putLore.run(session, lore, at);
      q.dropLoreBeyond.run(keep);
    },
    ...recallTx(c.db),
  };
}

function toRecord(r: ReplayRow): ReplayRecord {
  const record: ReplayRecord = {
    anchor: r.anchor,
    hash: r.hash,
    place: r.place as Placement,
    text: r.text,
    turn: r.turn,
    cards: JSON.parse(r.cards) as CardRef[],
  };
  if (r.role !== null) record.role = r.role as NonNullable<ReplayRecord["role"]>;
  if (r.tier !== null) record.tier = r.tier as Tier;
  return record;
}

function turnRecord(conversation: string, text: string): TurnRecord {
  return { conversation, ...(JSON.parse(text) as Omit<TurnRecord, "conversation">) };
}
