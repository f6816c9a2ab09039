/**
 * The narrow driver under the one domain layer (`_domain.ts`), the shape of unjs/unstorage's `Driver`:
 * a backend stores and finds rows, and knows nothing of the Store's rules. It never plans a commit,
 * merges a turn record or decides what a cap keeps; `_rules.ts`, `_turn-rules.ts` and
 * `_recall-rules.ts` do, once, in the domain layer, for every backend. What a driver does own:
 * - atomicity: `transaction` runs its body as one unit no other writer of the same keys interleaves
 *   with (an immediate SQLite transaction; a Postgres transaction under an advisory lock per key; a
 *   mutex on the heap), committed when the body resolves, rolled back when it throws;
 * - the orders a cap or a query spans the whole table with, in its own query language where an index
 *   serves them (`evict`: `byLeastRecentlySeen`; `byOpening`: `byMostRecentlySeen`; `dropRecalls` and
 *   `recallsSince`: `byOldest`; `turnsSince`: `byTime`), each named beside the rule it implements;
 * - where the marker secret and the hit log live.
 * Operations may answer at once or with a promise (`Maybe`): bun:sqlite and the heap answer at once,
 * a server a network away does not, and the domain layer awaits both alike.
 */

import type { ConversationRow, ReplayKey, StoredKeys } from "./_rules.ts";
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

/** What one commit changes in a conversation's ledger and replay records (`planCommit`'s plan). */
export interface LedgerChange {
  dropInjections: readonly string[];
  /** Replace any stored row with the same card. */
  putInjections: readonly Injection[];
  dropReplays: readonly ReplayKey[];
  /** Replaces any stored record with the same anchor and hash (one dropped by a new clock comes back). */
  putReplay: ReplayRecord | null;
}

/** A conversation as stored: its row, its ledger by turn then card (`byTurn`), its records by `byAnchor`. */
export interface StoredConversation {
  row: ConversationRow;
  injections: Injection[];
  replays: ReplayRecord[];
}

/** What a turn write reads: the conversation's row, the record of one turn, every turn kept. */
export interface StoredTurnKeys {
  row: ConversationRow | null;
  old: TurnRecord | null;
  turns: number[];
}

/** A share to add to (sign 1) or take from (sign -1) a day's totals (`addShare`). */
export interface DayChange {
  day: string;
  share: Share;
  sign: 1 | -1;
}

/** A recall as stored, with the number its adoptions are keyed by (valid inside one transaction). */
export interface NumberedRecall extends StoredRecall {
  n: number;
}

/**
 * Rows by key, inside one transaction (or one read). Each operation is one step of the domain layer
 * (read what a rule needs; write what it planned), so a backend a network away answers each in one
 * round trip.
 */
export interface Tx {
  /**
   * The conversation (null when none is stored) and, in the same read, the lore switch of the first of
   * `sessions` that has one (null for none): the gateway asks this on every request.
   */
  load(
    id: string,
    sessions: readonly string[],
  ): Maybe<{ stored: StoredConversation | null; lore: string | null }>;
  /** What `planCommit` reads: the row, and the keys and turns of the ledger and records (in no order). */
  commitKeys(id: string): Maybe<StoredKeys>;
  /** Stores the row (inserted, or updated by id) and applies the ledger change. */
  putCommit(id: string, row: ConversationRow, change: LedgerChange): Maybe<void>;
  conversation(id: string): Maybe<ConversationRow | null>;
  putConversation(id: string, row: ConversationRow): Maybe<void>;
  /** The conversation that opened with `opening`, most recently seen then smallest id; or null. */
  byOpening(opening: string): Maybe<string | null>;
  /**
   * Once there are more than `max + slack` conversations, drops the least recently seen (then by id)
   * beyond `max`, each with its ledger, replay records and turn records (its share of the days stays).
   */
  evict(max: number, slack: number): Maybe<void>;

  /** The row, the record of `turn` and every turn with a record (in no order). */
  turnKeys(id: string, turn: number): Maybe<StoredTurnKeys>;
  /**
   * Stores the row, replaces the record of `put.turn` (when given), drops the records of the turns in
   * `drop` and adds each change to its day's totals (`addShare`: a sum, so writers of other
   * conversations never wait for each other's day).
   */
  putTurn(
    id: string,
    row: ConversationRow,
    put: TurnRecord | null,
    drop: readonly number[],
    days: readonly DayChange[],
  ): Maybe<void>;
  /** The conversation's newest `limit` records (by turn, then time), oldest first; `limit` > 0. */
  turns(id: string, limit: number): Maybe<TurnRecord[]>;
  /** Records at or after `since`, by time, then conversation id, then turn (`byTime`). */
  turnsSince(since: number): Maybe<TurnRecord[]>;
  /** Conversations with records, most recently seen first, then by id; `limit` > 0. */
  withTurns(limit: number): Maybe<ConversationSummary[]>;
  /** Sets (or with null clears) a conversation's name; false when there is no such conversation. */
  nameConversation(id: string, name: string | null): Maybe<boolean>;
  /** Days from `sinceDay` on, oldest first, each with its totals (a day whose totals are empty included). */
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

  /**
   * Keeps a session's switch at `at` (replacing its old one), or with null drops it; then drops the
   * longest set beyond `keep` (`byLongestSet`).
   */
  putLore(session: string, lore: string | null, at: number, keep: number): Maybe<void>;
}

export interface Driver {
  /**
   * How writes are best sent: `grouped`, one writer at a time (a file: the writes of one turn of the
   * event loop share one transaction), or `concurrent`, one transaction per write and many at once (a
   * server: each locks the keys it names, so writes of other conversations never wait for it).
   */
  writes: "grouped" | "concurrent";
  /**
   * Runs `body` as one atomic unit: no other writer of the same `keys` (conversation ids; "" for the
   * recalls) interleaves with it, nor, for a grouped driver, any other writer. Rolled back when it throws.
   */
  transaction<T>(keys: readonly string[], body: (tx: Tx) => Promise<T>): Promise<T>;
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
