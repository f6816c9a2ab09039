/**
 * What one transaction on a state file has read and written (`_sqlite-tx.ts`), so the writes of a
 * group commit do not read and write the same rows over and over: a conversation's row (read once,
 * written only when it changed), the turn numbers and records of a conversation (read once, each
 * record written once, by `settle`), the ledger keys of a conversation the transaction created, and
 * each day's totals (read once, written once, by `settle`). `settle` runs before the commit and
 * before anything that reads the tables whole (the eviction, a listing); the transaction's memory is
 * let go with it.
 */

import type { DayChange, LedgerChange } from "./_driver.ts";
import type { ConversationRow, StoredKeys } from "./_rules.ts";
import type { Queries } from "./_sqlite-queries.ts";
import { addShare, emptyShare, type Share } from "./stats.ts";
import type { TurnRecord } from "./types.ts";

type Row = ConversationRow & { n: number };

interface Turns {
  /** Turn numbers with a record. */
  kept: Set<number>;
  /** Records read or written here (null: none stored for that turn). */
  records: Map<number, TurnRecord | null>;
  /**
   * Records changed here and not written yet, as the text to store: made at once, so a record that
   * cannot be stored fails its own write, not the commit of every write with it.
   */
  unwritten: Map<number, { at: number; surface: string; text: string }>;
}

/** The ledger keys of a conversation this transaction stored first (no other rows of it exist). */
interface NewLedger {
  injections: Map<string, { id: string; turn: number }>;
  replays: Map<string, { anchor: number; hash: string; turn: number }>;
}

export class TxMemory {
  private readonly rows = new Map<string, Row | null>();
  private readonly turns = new Map<number, Turns>();
  private readonly created = new Map<number, NewLedger>();
  private readonly days = new Map<string, { share: Share; changed: boolean }>();

  constructor(private readonly q: Queries) {}

  row(id: string): Row | null {
    let row = this.rows.get(id);
    if (row === undefined) {
      const r = this.q.conversation.get(id);
      row = r && { n: r.n, turn: r.turn, lastSeen: r.last_seen, opening: r.opening, timed: r.timed };
      this.rows.set(id, row);
    }
    return row;
  }

  /**
   * The row, and the switches of up to two sessions read in the same statement (`loaded`); the row
   * this transaction already knows wins, as in `row`.
   */
  rowAndSwitches(
    id: string,
    sessions: readonly [string?, string?],
  ): { row: Row | null; switches: (string | null)[] } {
    const r = this.q.loaded.get(id, sessions[0] ?? null, sessions[1] ?? null)!;
    let row = this.rows.get(id);
    if (row === undefined) {
      row =
        r.n === null
          ? null
          : { n: r.n, turn: r.turn!, lastSeen: r.last_seen!, opening: r.opening, timed: r.timed };
      this.rows.set(id, row);
    }
    return { row, switches: [r.lore, r.bare] };
  }

  /** Stores the row unless it is what is stored; returns the conversation's number. */
  putRow(id: string, row: ConversationRow): number {
    const before = this.rows.get(id);
    if (before && sameRow(before, row)) return before.n;
    const { n } = this.q.putConversation.get(id, row.turn, row.lastSeen, row.opening, row.timed)!;
    this.rows.set(id, { n, ...row });
    // Read as missing in this transaction, so stored now for the first time: it has no other rows.
    if (before === null) {
      this.created.set(n, { injections: new Map(), replays: new Map() });
      this.turns.set(n, { kept: new Set(), records: new Map(), unwritten: new Map() });
    }
    return n;
  }

  isNew(n: number): boolean {
    return this.created.has(n);
  }

  ledgerOfNew(n: number): Omit<StoredKeys, "row"> {
    const l = this.created.get(n)!;
    return { injections: [...l.injections.values()], replays: [...l.replays.values()] };
  }

  ledgerChanged(n: number, change: LedgerChange): void {
    const l = this.created.get(n);
    if (l === undefined) return;
    for (const card of change.dropInjections) l.injections.delete(card);
    for (const i of change.putInjections) l.injections.set(i.id, { id: i.id, turn: i.turn });
    for (const r of change.dropReplays) l.replays.delete(`${r.anchor}\u0000${r.hash}`);
    const r = change.putReplay;
    if (r) l.replays.set(`${r.anchor}\u0000${r.hash}`, { anchor: r.anchor, hash: r.hash, turn: r.turn });
  }

  private turnsOf(n: number): Turns {
    let t = this.turns.get(n);
    if (t === undefined) {
      const kept = new Set(this.q.turnNumbers.all(n).map((r) => r.turn));
      t = { kept, records: new Map(), unwritten: new Map() };
      this.turns.set(n, t);
    }
    return t;
  }

  turnNumbers(n: number): number[] {
    return [...this.turnsOf(n).kept];
  }

  turnRecord(id: string, n: number, turn: number): TurnRecord | null {
    const t = this.turnsOf(n);
    let record = t.records.get(turn);
    if (record === undefined) {
      const r = t.kept.has(turn) ? this.q.turn.get(n, turn) : null;
      record = r ? { conversation: id, ...(JSON.parse(r.record) as Omit<TurnRecord, "conversation">) } : null;
      t.records.set(turn, record);
    }
    return record;
  }

  /** Drops the records of `drop` now; `put` is written by `settle`. */
  putTurns(n: number, put: TurnRecord | null, drop: readonly number[]): void {
    const t = this.turnsOf(n);
    for (const turn of drop) {
      this.q.dropTurn.run(n, turn);
      t.kept.delete(turn);
      t.records.set(turn, null);
      t.unwritten.delete(turn);
    }
    if (put) {
      const { conversation: _id, ...stored } = put;
      const text = JSON.stringify(stored);
      t.kept.add(put.turn);
      t.records.set(put.turn, put);
      t.unwritten.set(put.turn, { at: put.at, surface: put.surface, text });
    }
  }

  /** Adds a change to its day's totals, read once per transaction; written by `settle`. */
  addToDay(d: DayChange): void {
    let day = this.days.get(d.day);
    if (day === undefined) {
      const before = this.q.day.get(d.day);
      day = { share: before ? (JSON.parse(before.totals) as Share) : emptyShare(), changed: false };
      this.days.set(d.day, day);
    }
    day.share = addShare(day.share, d.share, d.sign);
    day.changed = true;
  }

  /** Writes the turn records and days' totals held back. */
  settle(): void {
    for (const [n, t] of this.turns) {
      for (const [turn, r] of t.unwritten) this.q.putTurn.run(n, turn, r.at, r.surface, r.text);
      t.unwritten.clear();
    }
    for (const [day, d] of this.days) {
      if (d.changed) this.q.putDay.run(day, JSON.stringify(d.share));
      d.changed = false;
    }
  }

  /** After an eviction: numbers may name no conversation now, or later another one. */
  forget(): void {
    this.settle();
    this.rows.clear();
    this.turns.clear();
    this.created.clear();
  }
}

function sameRow(a: ConversationRow, b: ConversationRow): boolean {
  return a.turn === b.turn && a.lastSeen === b.lastSeen && a.opening === b.opening && a.timed === b.timed;
}
