/**
 * The Store interface: what any state backend (the embedded bun:sqlite default, the in-memory one, a
 * shared server later) must provide, and the rules every backend keeps. The per-conversation rules are
 * written once, in TypeScript (`_rules.ts`), and both backends apply them; the rest is stated here and
 * checked by the contract suite every backend runs (test/state/contract.ts).
 *
 * Reads return fresh plain data (changing it changes nothing stored). Every write is one atomic merge, so
 * concurrent writers (two gateways, a gateway and the hook, several handles of one process) lose none of
 * each other's rows. Every operation is async: a backend may be a network away.
 */

import type { HitEntry } from "./hits.ts";

/** Caps (README "Conversations, dedupe and replay"): least recently seen conversations are dropped first. */
export const LIMITS = { cardsPerConversation: 200, replaysPerConversation: 200, conversations: 500 } as const;

export type Limits = { [K in keyof typeof LIMITS]: number };

/** A card as it was injected: `kind/key` id and the `mtime:size` version its text was rendered from. */
export interface CardRef {
  id: string;
  version: string;
}

/** The dedupe ledger: which card went in at which turn. No message text. */
export interface Injection extends CardRef {
  turn: number;
}

/**
 * Where a replayed block goes, relative to its anchor message:
 * - `prefix`: in front of the anchor message's content (a leading text part for array content);
 * - `after`: as a new system message right after the anchor message;
 * - `system`: appended to the request's top-level `system` field (Anthropic).
 */
export type Placement = "prefix" | "after" | "system";

/**
 * Exactly which bytes were added to which message. The record applies to a later request only while the
 * message at `anchor` still hashes to `hash`; an edited or dropped message means its cards are gone.
 */
export interface ReplayRecord {
  anchor: number;
  hash: string;
  place: Placement;
  text: string;
  turn: number;
  cards: CardRef[];
}

/**
 * What recall's timed effects (sticky, cooldown, delay, the history decorators) remember of one card,
 * in message counts of the conversation: the shape of recall's `TimedEntry`, stored as given.
 */
export interface TimedRecord {
  last: number;
  stickyUntil?: number;
  cooldownUntil?: number;
  spent?: boolean;
}

/** Per card id (`kind/key`). */
export type TimedRecords = Readonly<Record<string, TimedRecord>>;

export interface Conversation {
  id: string;
  /** The last turn index seen; 0 for a conversation never seen. */
  turn: number;
  /** Milliseconds since the epoch; 0 for a conversation never seen. */
  lastSeen: number;
  /** Ordered by turn, then id. */
  injections: Injection[];
  /** Ordered by anchor, then turn. */
  replays: ReplayRecord[];
  /** The timed-effects memory the last recall left; {} for none. */
  timed: TimedRecords;
}

export interface ConversationChange {
  turn: number;
  now: number;
  injections?: Injection[];
  /** Kept only if no record exists yet for the same anchor and hash (the first writer wins). */
  replay?: ReplayRecord;
  /**
   * A hash of how the conversation opened (its first user message and what precedes it, without the
   * system prompt); kept from the first commit that gives one.
   */
  opening?: string;
  /** The timed-effects memory to keep: replaces the stored one whole. Absent: the stored one stays. */
  timed?: TimedRecords;
}

export interface Store {
  /** What is remembered of a conversation; one never seen (or evicted) loads with turn 0 and nothing. */
  loadConversation(id: string): Promise<Conversation>;
  /**
   * Merges a change in one atomic step (`planCommit` in `_rules.ts` says exactly how):
   * - the turn becomes `change.turn`; the time seen only moves forward; the first opening given is kept;
   * - a turn lower than the stored one starts a new clock: ledger rows and replay records from later
   *   turns are dropped before the change is merged;
   * - a card already in the ledger keeps the later of its two turns and takes the new version;
   * - the first replay record for an (anchor, hash) wins; a second one is ignored;
   * - a conversation keeps its `cardsPerConversation` most recent cards (by turn, then id) and its
   *   `replaysPerConversation` records nearest the end (by anchor, then turn);
   * - a change with `timed` replaces the timed memory, keeping its `cardsPerConversation` entries
   *   that fired last (by `last`, then id); a new clock without one forgets it;
   * - a conversation stored for the first time may push the store over `conversations`: the least
   *   recently seen conversations (then by id) are dropped, with everything they hold.
   */
  commitTurn(id: string, change: ConversationChange): Promise<void>;
  /**
   * Increments and returns the conversation's turn clock (1 for one never seen), for callers with no
   * request to count turns in. Counts as seen at `now`, and as stored for the conversation cap.
   */
  advanceTurn(id: string, now: number): Promise<number>;
  /** The most recently seen conversation that opened with `opening` (then the smallest id), or null. */
  findByOpening(opening: string): Promise<string | null>;
  /**
   * The secret our injection markers derive from: 48 hex digits, made on first use, the same for every
   * handle on the same state for as long as that state exists, different for another.
   */
  markerSecret(): Promise<string>;
  /** Appends entries to the hit log, each cut to the stored shape (`normalizeHit`). */
  appendHits(entries: readonly HitEntry[]): Promise<void>;
  /** The newest `limit` entries, newest first; an empty log (or `limit` ≤ 0) gives []. */
  recentHits(limit: number): Promise<HitEntry[]>;
  /** Lets go of connections; later calls on this handle reject. Closing twice is harmless. */
  close(): Promise<void>;
}
