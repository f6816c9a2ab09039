/**
 * The rows of a state file (_sqlite-file.ts) as the driver's `Tx` (_driver.ts): one prepared
 * statement per operation (_sqlite-queries.ts, where the orders a query spans a table with are written
 * in SQL), run inside whatever transaction the driver holds.
 *
 * A group commit runs the writes of many requests in one transaction, and the writes of one request
 * (its commit, its turn record, its usage) each read the conversation's row, its turn numbers and its
 * day's totals again, and write them again. So a transaction remembers what it read and wrote
 * (`_sqlite-seen.ts`): a row read twice is read once, a row written unchanged is not written, a turn
 * record is written once at the end however often it changed, and each day's totals are read once and
 * written once. What it remembers dies with it; nothing is cached across transactions, where another
 * process may have written.
 */

import type { LedgerChange, Tx } from "./_driver.ts";
import type { ConversationRow } from "./_rules.ts";
import type { Connection } from "./_sqlite-file.ts";
import type { ReplayRow } from "./_sqlite-queries.ts";
import { recallTx } from "./_sqlite-recalls.ts";
import { TxMemory } from "./_sqlite-seen.ts";
import type { Share } from "./stats.ts";
import type { CardRef, Placement, ReplayRecord, Tier, TurnRecord } from "./types.ts";

/** A transaction's `Tx`, and `finish`: writes what it held back, before the commit. */
export interface SqliteTx extends Tx {
  finish(): void;
  /** After the commit: the kept ledgers take what it wrote (`_sqlite-ledgers.ts`). */
  committed(): void;
  /** After a rollback: the kept ledgers it touched are dropped. */
  abandoned(): void;
}

export function sqliteTx(c: Connection): SqliteTx {
  const { q, ledgers } = c;
  const seen = new TxMemory(q);
  /** What this transaction wrote to each conversation's ledger, in order, for the kept ledgers. */
  const changed: [number, LedgerChange][] = [];
  const touched = new Set<number>();
  const rowOf = (id: string) => seen.row(id);
  /** Stores the row; returns the conversation's number, what its other rows are keyed by. */
  const putRow = (id: string, row: ConversationRow): number => seen.putRow(id, row);

  return {
    load(id, sessions) {
      // The row and the first two sessions' switches in one statement (sessionsOf gives two at most).
      const [first, second, ...more] = sessions;
      const { row: found, switches } = seen.rowAndSwitches(id, [first, second]);
      let lore = switches[0] ?? switches[1] ?? null;
      for (const s of more) lore ??= q.lore.get(s)?.lore ?? null;
      if (found === null) return { stored: null, lore };
      const { n, ...row } = found;
      const read = () => ({
        injections: q.injections.all(n).map((r) => ({ id: r.card, turn: r.turn, version: r.version })),
        replays: q.replays.all(n).map(toRecord),
      });
      // A ledger this transaction wrote is read from the file: kept ones are what is committed.
      return { stored: { row, ...(touched.has(n) ? read() : ledgers.get(n, read)) }, lore };
    },
    commitKeys(id) {
      const stored = rowOf(id);
      if (stored === null) return { row: null, injections: [], replays: [] };
      const { n, ...row } = stored;
      if (seen.isNew(n)) return { row, ...seen.ledgerOfNew(n) };
      const kept = touched.has(n) ? undefined : ledgers.keys(n);
      if (kept !== undefined) return { row, ...kept };
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
      seen.ledgerChanged(n, change);
      touched.add(n);
      changed.push([n, change]);
    },
    conversation(id) {
      const stored = rowOf(id);
      if (stored === null) return null;
      const { n: _n, ...row } = stored;
      return row;
    },
    putConversation: (id, row) => void putRow(id, row),
    byOpening: (opening) => {
      seen.settle();
      return q.byOpening.get(opening)?.id ?? null;
    },
    evict(max, slack) {
      seen.settle();
      if (q.conversationCount.get()!.n <= max + slack) return;
      const gone = q.evict.all(max).map((r) => r.n);
      if (gone.length === 0) return;
      const ns = JSON.stringify(gone);
      q.dropInjectionsOf.run(ns);
      q.dropReplaysOf.run(ns);
      q.dropTurnsOf.run(ns);
      seen.forget();
      // A number may name another conversation later.
      for (const n of gone) {
        ledgers.drop(n);
        touched.add(n);
      }
    },

    turnKeys(id, turn) {
      const stored = rowOf(id);
      if (stored === null) return { row: null, old: null, turns: [] };
      const { n, ...row } = stored;
      return { row, old: seen.turnRecord(id, n, turn), turns: seen.turnNumbers(n) };
    },
    putTurn(id, row, put, drop, days) {
      const n = putRow(id, row);
      seen.putTurns(n, put, drop);
      for (const d of days) seen.addToDay(d);
    },
    turns: (id, limit) => {
      seen.settle();
      return q.turns.all(id, limit).map((r) => turnRecord(id, r.record));
    },
    turnsSince: (since) => {
      seen.settle();
      return q.turnsSince.all(since).map((r) => turnRecord(r.id, r.record));
    },
    withTurns: (limit) => {
      seen.settle();
      return q.withTurns.all(limit).map((r) => ({
        id: r.id,
        surface: r.surface as TurnRecord["surface"],
        turns: r.turns,
        lastSeen: r.last_seen,
        name: r.name,
      }));
    },
    nameConversation: (id, name) => q.nameConversation.run(name, id).changes > 0,
    days: (sinceDay) => {
      seen.settle();
      return q.days.all(sinceDay).map((r) => ({ day: r.day, share: JSON.parse(r.totals) as Share }));
    },
    putLore(session, lore, at, keep) {
      if (lore === null) q.dropLore.run(session);
      else q.putLore.run(session, lore, at);
      q.dropLoreBeyond.run(keep);
    },
    ...recallTx(c.db),
    finish: () => seen.settle(),
    committed() {
      for (const [n, change] of changed) ledgers.committed(n, change);
    },
    abandoned() {
      for (const n of touched) ledgers.drop(n);
    },
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
