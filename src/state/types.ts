/**
 * The Store interface: what any state backend (the embedded bun:sqlite default, a shared one later)
 * must provide. Reads return plain data; every write is one atomic merge, so concurrent writers (two
 * gateways, a gateway and the hook) lose none of each other's rows.
 */

/** Caps from the spec's Dedupe section: least recently seen conversations are dropped first. */
export const LIMITS = { cardsPerConversation: 200, replaysPerConversation: 200, conversations: 500 } as const;

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

export interface Conversation {
  id: string;
  /** The last turn index seen; 0 for a conversation never seen. */
  turn: number;
  /** Milliseconds since the epoch; 0 for a conversation never seen. */
  lastSeen: number;
  injections: Injection[];
  /** Ordered by anchor, then turn. */
  replays: ReplayRecord[];
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
}

export interface Store {
  load(conversation: string): Conversation;
  /**
   * Merges a change in one immediate transaction. A turn lower than the stored one starts a new clock:
   * ledger rows and replay records from later turns are dropped.
   */
  commit(conversation: string, change: ConversationChange): void;
  /** Increments and returns the conversation's turn clock (for callers with no request to count). */
  advance(conversation: string, now: number): number;
  /** The most recently seen conversation that opened with `opening`, or null. */
  findByOpening(opening: string): string | null;
  close(): void;
}
