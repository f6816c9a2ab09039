/**
 * The narrow driver under the one domain layer (`_domain.ts`), the shape of unjs/unstorage's `Driver`:
 * a backend stores and finds rows, and knows nothing of the Store's rules. It never plans a commit,
 * merges a turn record or decides what a cap keeps; `_rules.ts`, `_turn-rules.ts` and
 * `_recall-rules.ts` do, once, in the domain layer, for every backend. What a driver does own:
 * - atomicity: `transaction` runs its body as one unit no other writer of the same state interleaves
 *   with (an immediate SQLite transaction; a Postgres transaction under one advisory lock; a mutex on
 *   the heap), committed when the body resolves, rolled back when it throws;
 * - the orders a cap or a query spans the whole table with, in its own query language where an index
 *   serves them (`evict`: `byLeastRecentlySeen`; `byOpening`: `byMostRecentlySeen`; `dropRecalls` and
 *   `recallsSince`: `byOldest`; `turnsSince`: `byTime`), each named beside the rule it implements;
 * - where the marker secret and the hit log live.
 * Operations may answer at once or with a promise (`Maybe`): bun:sqlite and the heap answer at once,
 * a server a network away does not, and the domain layer awaits both alike.
 */

import type { ConversationRow, ReplayKey } from "./_rules.ts";
import type { HitEntry } from "./hits.ts";
import type { Share } from "./stats.ts";
import type {
  ConversationSummary,
  Injection,
  RecallRecord,
  ReplayRecord,
  StoredRecall,
  TurnRecord,
} from "./types.ts";

export type Maybe<T> = T | Promise<T>;

/** A conversation's row as stored, with the number its other rows are keyed by. */
export interface StoredRow extends ConversationRow {
  n: number;
}

/** What one commit changes in a conversation's ledger and replay records (`planCommit`'s plan). */
export interface LedgerChange {
  dropInjections: readonly string[];
  /** Replace any stored row with the same card. */
  putInjections: readonly Injection[];
  dropReplays: readonly ReplayKey[];
  /** Replaces any stored record with the same anchor and hash (one dropped by a new clock comes back). */
  putReplay: ReplayRecord | null;
}

/** A recall as stored, with the number its adoptions are keyed by. */
export interface NumberedRecall extends StoredRecall {
  n: number;
}

/** Rows by key, inside one transaction (or one read). `n` is a conversation's number (`StoredRow`). */
export interface Tx {
  conversation(id: string): Maybe<StoredRow | null>;
  /** Inserts or updates the row by id; returns the conversation's number, which never changes. */
  putConversation(id: string, row: ConversationRow): Maybe<number>;
  /** The ledger by turn then card id (`byTurn`), replay records by anchor, turn, hash (`byAnchor`). */
  ledger(n: number): Maybe<{ injections: Injection[]; replays: ReplayRecord[] }>;
  /** The keys and turns `planCommit` reads, in no order. */
  ledgerKeys(n: number): Maybe<{
    injections: { id: string; turn: number }[];
    replays: (ReplayKey & { turn: number })[];
  }>;
  applyLedger(n: number, change: LedgerChange): Maybe<void>;
  /** The conversation that opened with `opening`, most recently seen then smallest id; or null. */
  byOpening(opening: string): Maybe<string | null>;
  /**
   * Drops the least recently seen conversations (then by id) beyond `max`, each with its ledger,
   * replay records and turn records (its share of the days stays).
   */
  evict(max: number): Maybe<void>;

  /** The record of `turn` in conversation `n` (named `id` in what is returned). */
  turnRecord(id: string, n: number, turn: number): Maybe<TurnRecord | null>;
  /** Every turn with a record kept, in no order. */
  turnNumbers(n: number): Maybe<number[]>;
  /** Replaces the record of `put.turn` (when given) and drops the records of the turns in `drop`. */
  applyTurns(n: number, put: TurnRecord | null, drop: readonly number[]): Maybe<void>;
  day(day: string): Maybe<Share | null>;
  putDay(day: string, share: Share): Maybe<void>;
  /** The conversation's newest `limit` records (by turn, then time), oldest first; `limit` > 0. */
  turns(id: string, limit: number): Maybe<TurnRecord[]>;
  /** Records at or after `since`, by time, then conversation id, then turn (`byTime`). */
  turnsSince(since: number): Maybe<TurnRecord[]>;
  /** Conversations with records, most recently seen first, then by id; `limit` > 0. */
  withTurns(limit: number): Maybe<ConversationSummary[]>;
  /** Days from `sinceDay` on, oldest first, as stored (a day whose share is empty included). */
  days(sinceDay: string): Maybe<{ day: string; share: Share }[]>;

  /** Stores a recall (already in its normal form) unless one is kept under its ids. */
  putRecall(record: RecallRecord): Maybe<void>;
  /** Drops recalls from before `before`, then the oldest (`byOldest`) beyond `keep`, with their adoptions. */
  dropRecalls(before: number, keep: number): Maybe<void>;
  recall(session: string, query: string): Maybe<NumberedRecall | null>;
  /** Keeps the first opening of `card` from recall `n`; a second is ignored. */
  putAdoption(n: number, card: string, at: number): Maybe<void>;
  /** Recalls at or after `since`, oldest first (`byOldest`), with their adoptions. */
  recallsSince(since: number): Maybe<StoredRecall[]>;
}

export interface Driver {
  /** Runs `body` as one atomic unit no other writer interleaves with; rolled back when it throws. */
  transaction<T>(body: (tx: Tx) => Promise<T>): Promise<T>;
  /** Runs reads that see every transaction committed before it began. */
  read<T>(body: (tx: Tx) => Promise<T>): Promise<T>;
  /** The store's marker secret (`Store.markerSecret`). */
  markerSecret(): Promise<string>;
  /** Appends entries already in their stored shape, in order. */
  appendHits(entries: readonly HitEntry[]): Promise<void>;
  /** The newest `limit` entries (`limit` > 0), newest first. */
  recentHits(limit: number): Promise<HitEntry[]>;
  /** Lets go of files and connections; called once, after the last transaction. */
  close(): Promise<void>;
}
