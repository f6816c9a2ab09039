/**
 * The ledgers (a conversation's injections and replay records, decoded) a connection read lately, so
 * that a request of a long conversation does not read and parse the whole ledger again: it grows by a
 * record or so a turn, and reading 200 records (the cap) took about 350 µs of every request, the
 * largest part of what a long conversation's turn cost beyond a new one's (bench/README.md). A kept
 * ledger is always the file's:
 * - this connection's own commits apply what they wrote to it once the commit is done (`committed`);
 *   a transaction rolled back drops what it touched (`drop`);
 * - another connection's commit (a second gateway, the hook, a command on the same file) moves
 *   SQLite's `data_version`, and every kept ledger is dropped before the next read.
 * Kept for the most recently read conversations, within a bound on their text (memory, not speed:
 * a missed ledger is read as before). Each read gets a copy of its own, as a read of the file gives:
 * changing it changes nothing kept (the stores' shared contract, test/state/contract.ts).
 */
import type { Database, Statement } from "bun:sqlite";
import type { LedgerChange } from "./_driver.ts";
import { byAnchor, byTurn, type ReplayKey, type StoredKeys } from "./_rules.ts";
import type { Injection, ReplayRecord } from "./types.ts";

/** At most this many conversations' ledgers, and this many characters of replayed text in all. */
const MAX_LEDGERS = 128;
const MAX_CHARS = 2_000_000;

export interface Ledger {
  injections: Injection[];
  replays: ReplayRecord[];
}

interface Kept extends Ledger {
  chars: number;
}

export class LedgerMemo {
  private readonly kept = new Map<number, Kept>();
  private chars = 0;
  private version: number | undefined;
  private readonly dataVersion: Statement<{ data_version: number }, []>;

  constructor(db: Database) {
    this.dataVersion = db.query("PRAGMA data_version");
  }

  /** Conversation `n`'s ledger: the one kept, else `read` (and kept). */
  get(n: number, read: () => Ledger): Ledger {
    const hit = this.current(n);
    if (hit !== undefined) return copied(hit);
    const ledger = read();
    this.keep(n, ledger);
    return copied(ledger);
  }

  /**
   * The keys of conversation `n`'s ledger when one is kept, all a commit plans with: the kept lists
   * themselves, not copies (a plan only reads its keys, `planCommit`, and a long conversation's copy
   * of its 200 keys cost more than the plan).
   */
  keys(n: number): Omit<StoredKeys, "row"> | undefined {
    const hit = this.current(n);
    return hit && { injections: hit.injections, replays: hit.replays };
  }

  /** The kept ledger of `n`, made the most recently read, once another connection's commits are seen. */
  private current(n: number): Kept | undefined {
    const version = this.dataVersion.get()!.data_version;
    if (version !== this.version) {
      this.clear();
      this.version = version;
    }
    const hit = this.kept.get(n);
    if (hit === undefined) return undefined;
    // Most recently read last: the first is the one to let go.
    this.kept.delete(n);
    this.kept.set(n, hit);
    return hit;
  }

  /** A committed change of conversation `n`, as `putCommit` wrote it: a kept ledger takes it too. */
  committed(n: number, change: LedgerChange): void {
    const old = this.kept.get(n);
    if (old === undefined) return;
    const putIds = new Set(change.putInjections.map((i) => i.id));
    const gone = new Set([...change.dropInjections, ...putIds]);
    const injections = [
      ...old.injections.filter((i) => !gone.has(i.id)),
      ...change.putInjections.map((i) => ({ id: i.id, turn: i.turn, version: i.version })),
    ].sort(byTurn);
    const put = change.putReplay;
    // Mostly a turn adds one record and drops none: the others are kept as they are, in their order.
    const dropped = new Set(change.dropReplays.map(keyOf));
    if (put) dropped.add(keyOf(put));
    const replays = old.replays.filter((r) => !(dropped.size > 0 && dropped.has(keyOf(r))));
    if (put) insertSorted(replays, asStored(put));
    this.drop(n);
    this.keep(n, { injections, replays });
  }

  drop(n: number): void {
    const old = this.kept.get(n);
    if (old === undefined) return;
    this.kept.delete(n);
    this.chars -= old.chars;
  }

  clear(): void {
    this.kept.clear();
    this.chars = 0;
  }

  private keep(n: number, ledger: Ledger): void {
    const chars = ledger.replays.reduce((sum, r) => sum + r.text.length, 0);
    if (chars > MAX_CHARS) return;
    this.kept.set(n, { ...ledger, chars });
    this.chars += chars;
    while (this.kept.size > MAX_LEDGERS || this.chars > MAX_CHARS) {
      this.drop(this.kept.keys().next().value as number);
    }
  }
}

function keyOf(r: ReplayKey): string {
  return `${r.anchor}\n${r.hash}`;
}

/** A record as a read of the table gives it back: its cards through JSON, no role or tier when none. */
function asStored(r: ReplayRecord): ReplayRecord {
  return copiedRecord(r, JSON.parse(JSON.stringify(r.cards)));
}

/** `record` in `records` (sorted `byAnchor`) at its place: after every record that sorts before it. */
function insertSorted(records: ReplayRecord[], record: ReplayRecord): void {
  let lo = 0;
  let hi = records.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (byAnchor(records[mid]!, record) <= 0) lo = mid + 1;
    else hi = mid;
  }
  records.splice(lo, 0, record);
}

function copied(ledger: Ledger): Ledger {
  return {
    injections: ledger.injections.map((i) => ({ ...i })),
    replays: ledger.replays.map((r) => copiedRecord(r)),
  };
}

/**
 * A record copied field by field, with `cards` (a copy of its own by default): one shape for every
 * copy, where a spread of each cost more, 200 a read.
 */
function copiedRecord(r: ReplayRecord, cards = r.cards.map((c) => ({ ...c }))): ReplayRecord {
  const record: ReplayRecord = {
    anchor: r.anchor,
    hash: r.hash,
    place: r.place,
    text: r.text,
    turn: r.turn,
    cards,
  };
  if (r.role != null) record.role = r.role;
  if (r.tier != null) record.tier = r.tier;
  return record;
}
