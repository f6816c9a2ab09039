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

import type { LoreSwitch } from "../defaults.ts";
import type { ApiName } from "../gateway/protocols.ts";
import type { HitEntry } from "./hits.ts";

/**
 * Caps (README "Conversations, dedupe and replay"): least recently seen conversations are dropped first;
 * a conversation keeps its `turnsPerConversation` newest turn records (README "What it costs").
 */
export const LIMITS = {
  cardsPerConversation: 200,
  replaysPerConversation: 200,
  turnsPerConversation: 200,
  conversations: 500,
  /** Index recalls kept (README "Index mode and adoption"): the oldest go first, with their adoptions. */
  recalls: 20_000,
  /** Days an index recall is kept; older ones go when the next recall is recorded. */
  recallDays: 90,
  /** Cards kept of one recall's list, the first ones. */
  cardsPerRecall: 100,
  /** Sessions' lore switches kept (`setLore`): the longest set go first. */
  loreSwitches: 500,
} as const;

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
 * - `after`: as a new message right after the anchor message (role `role`, default system);
 * - `before`: as a new message right before the anchor message (role `role`, default system);
 * - `system`: appended to the system text (Anthropic's top-level `system`; OpenAI: after the anchor);
 * - `system_start`: in front of the system text.
 */
export type Placement = "prefix" | "after" | "before" | "system" | "system_start";

/**
 * The two tiers of what the gateway sends (README "Stable and volatile"): `stable` is the always-on
 * block at a place that never moves; `volatile` the cards new this turn (or edited since they were
 * sent) at the newest message; `placed` a card at the place its author asked for (`position`, depth).
 */
export type Tier = "stable" | "volatile" | "placed";

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
  /** The role of an inserted message (`before` / `after`); absent = system. */
  role?: "system" | "user" | "assistant";
  /** Which tier it belongs to; absent = volatile (records written before tiers). */
  tier?: Tier;
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
  /** The lore switch set for a session this conversation carries (`setLore`, _lore-rules.ts); absent: none. */
  lore?: LoreSwitch;
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

/** What a provider reported for one response, in tokens (README "What it costs"). */
export interface Usage {
  /** Input tokens billed at the full price (Anthropic `input_tokens`; OpenAI prompt minus cached). */
  uncached: number;
  /** Input tokens read from the provider's prompt cache. */
  cacheRead: number;
  /** Input tokens written to the cache (Anthropic `cache_creation_input_tokens`; 0 for OpenAI). */
  cacheWrite: number;
  output: number;
}

/** One block a surface added to a request this turn (a replayed block is not "added"). */
export interface SentBlock {
  tier: Tier;
  /** Where it went, for people: "first user message", "system", "depth 2 as system", "newest user message". */
  where: string;
  /** Exactly the bytes added (markers included). */
  text: string;
  /** Card ids (`kind/key`) in it, in order. */
  cards: string[];
  /** Of those, the cards re-sent because they changed since they were last sent. */
  edited?: string[];
  /**
   * It went in before content the previous request already had (the system text, a depth, a new
   * stable block): the provider's prefix cache breaks there, and a miss this turn is blamed on its cards.
   */
  early?: boolean;
}

/**
 * One turn of a conversation as a surface handled it: what it added, what it left out, and (once the
 * response is in) what the provider billed. Sizes are characters of the prompt text, turned into
 * tokens with the ratio the provider's own count gives (stats.ts).
 */
export interface TurnRecord {
  conversation: string;
  turn: number;
  /** Milliseconds since the epoch. */
  at: number;
  surface: "gateway" | "hook";
  api?: ApiName;
  model?: string;
  blocks: SentBlock[];
  /** Characters of our earlier blocks replayed into this request. */
  replayedChars: number;
  /** Cards that fired but were left out this turn, with recall's reason. */
  leftOut: { id: string; reason: string }[];
  /** The lore switch in force when it was not `auto` (the door says it): `declared` or `none`. */
  lore?: "declared" | "none";
  /** The books the turn read, when more than the vault's own cards (recall's `books`): the editor says which. */
  books?: string[];
  /** Characters of the prompt text as sent (system and every message's text, our blocks included). */
  promptChars: number;
  /**
   * The same turn under the original tool's strip-and-reinject: the prompt's characters (the client's
   * text plus this turn's new blocks at the newest message only), and how many of them lead the
   * prompt unchanged since the previous turn's request (what a prefix cache could have read).
   */
  counterfactual: { promptChars: number; cachedChars: number };
  /**
   * Characters of the prompt the previous turn's request sent too (system text and messages through
   * its newest user message, with the blocks replayed into them): what a prefix cache could read had
   * no block of this turn gone in before it (an `early` block cuts into it, and is blamed for that).
   */
  sharedChars: number;
  /** What the provider billed for this turn: every response's usage, summed (retries, tool loops). */
  usage?: Usage;
  /** How many responses `usage` sums (absent: one, or none yet). */
  requests?: number;
  /** Cards blamed for a cache miss on this turn (an `early` block's cards when the cache read fell short). */
  blame?: string[];
}

export interface ConversationSummary {
  id: string;
  /** The surface of its newest turn record. */
  surface: "gateway" | "hook";
  /** Turn records kept. */
  turns: number;
  lastSeen: number;
  /** What the person named it in the editor; null until they do. */
  name: string | null;
}

/**
 * The sums of one UTC day's turn records, kept apart from the records so they outlive conversations
 * dropped by the cap (README "What it costs"). Token counts are what providers reported, or characters
 * turned into tokens with the turn's own ratio (stats.ts `contribution`); costs are input tokens in
 * uncached-token equivalents (stats.ts `WEIGHTS`).
 */
export interface DayTotals {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  /** Turn records made (one replaced by a later record of its turn still counts: it was sent). */
  turns: number;
  /** Of those, the turns with usage from the provider. */
  measured: number;
  uncached: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  /** Characters of the blocks added (known without usage: the hook's too). */
  injectedChars: number;
  /** Tokens of the blocks added, and of earlier blocks replayed (measured turns only). */
  injectedTokens: number;
  replayedTokens: number;
  /** The strip-and-reinject counterfactual's input tokens: what a prefix cache could have read, the rest. */
  counterfactualCached: number;
  counterfactualUncached: number;
  /** Input cost, and the counterfactual's, in uncached-token equivalents. */
  cost: number;
  counterfactualCost: number;
  /** Turns with a cache miss blamed on cards. */
  misses: number;
  /** Per card id: turns whose miss was blamed on it. */
  blame: Record<string, number>;
}

/**
 * One index recall (README "Index mode and adoption"): the cards an index block listed, in order, for
 * which conversation, under which query id. Kept apart from the conversations (the conversation cap
 * does not drop them); the recall cap and age do.
 */
export interface RecallRecord {
  /** The conversation as the block names it (the hook's `hook:<session_id>`, the gateway's id, `try`). */
  session: string;
  /** The query id the block names: unique per recall. */
  query: string;
  /** Milliseconds since the epoch. */
  at: number;
  surface: "gateway" | "hook" | "try";
  /** Card ids (`kind/key`) listed, in order, each once. */
  cards: string[];
}

/** A recall as stored, with the cards the agent opened from it (`recordAdoption`), by card id. */
export interface StoredRecall extends RecallRecord {
  /** Card id → when it was first opened. */
  opened: Record<string, number>;
}

/** An agent opened a card it saw in an index block, naming the block's ids (MCP `read_card`). */
export interface AdoptionRecord {
  session: string;
  query: string;
  /** The card opened, `kind/key`. */
  card: string;
  at: number;
}

/**
 * What became of an adoption: `recorded` (the first opening of that card from that recall),
 * `repeated` (opened from it before: counted once), `unknown_query` (no recall kept under those ids:
 * never made, or pruned), `not_listed` (the recall did not list that card).
 */
export type AdoptionOutcome = "recorded" | "repeated" | "unknown_query" | "not_listed";

/** One card's use in a window of recalls (`cardUsage`). */
export interface CardUsage {
  card: string;
  /** Recalls that listed it. */
  recalled: number;
  /** Of those, the recalls it was opened from. */
  opened: number;
  /** The newest recall that listed it (ms). */
  lastRecalled: number;
  /** When it was last opened from one of those recalls (ms); null for never. */
  lastOpened: number | null;
}

export interface UsageWindow {
  /** Recalls recorded in the window. */
  recalls: number;
  /** Cards listed at least once in the window, by id. */
  cards: CardUsage[];
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
   * - a conversation stored for the first time may push the store over `conversations`: once it is
   *   over by more than a tenth (_domain.ts `evictionSlack`), the least recently seen conversations
   *   (then by id) are dropped down to the cap, with everything they hold.
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
  /**
   * Keeps what a surface did on one turn. A second record for the same conversation and turn (the
   * message was edited and sent again, a client's side request such as Claude Code's title request went
   * first, or the conversation began a new clock) replaces the first and keeps the usage the turn was
   * billed that day (with `requests` and blame), so the conversation's turns add up to what the day
   * counts; a first record of an earlier day stays in that day, and the new one starts with no usage. The conversation counts as
   * seen at `record.at` and as stored for the conversation cap (a new one is stored with turn 0: its
   * turn clock is `commitTurn`'s); it keeps its `turnsPerConversation` records of the highest turns, and a
   * record below those is not kept (nor counted). Per-day totals outlive the conversation (`days`).
   */
  recordTurn(record: TurnRecord): Promise<void>;
  /**
   * What the provider billed for one response of a turn: added to the turn's record (a retry, a
   * regenerate, each request of a tool loop: every one is billed; `requests` counts them). A turn with
   * no record yet gets a bare one (no blocks, surface gateway, at `at`), so turns without cards count in
   * the totals too. Blame is worked out from a record's first usage (stats.ts `blameFor`).
   */
  recordUsage(conversation: string, turn: number, usage: Usage, at: number): Promise<void>;
  /** The conversation's newest `limit` turn records (by turn), oldest first; `limit` ≤ 0 gives []. */
  turns(conversation: string, limit: number): Promise<TurnRecord[]>;
  /** The most recently seen conversations that have turn records, newest first (then by id). */
  conversations(limit: number): Promise<ConversationSummary[]>;
  /**
   * Names a stored conversation (null takes the name away); the name goes with the conversation when a
   * cap drops it. False when no conversation has that id.
   */
  nameConversation(id: string, name: string | null): Promise<boolean>;
  /**
   * Every turn record kept at or after `since` (ms), oldest first (then by conversation and turn), for
   * per-conversation totals; per-day totals, which outlive the records, are `days`.
   */
  turnsSince(since: number): Promise<TurnRecord[]>;
  /**
   * The per-day totals from `sinceDay` (`YYYY-MM-DD`, UTC) on, oldest first; days with no turn are
   * absent. A record's share goes to the day of its `at`; replacing the record moves it with it; a record
   * dropped by a cap leaves its share where it was.
   */
  days(sinceDay: string): Promise<DayTotals[]>;
  /**
   * Keeps an index recall (`_recall-rules.ts` says exactly how): the first record of a (session,
   * query) wins; its card list is kept once per card, the first `cardsPerRecall`; recalls older than
   * `recallDays` before `record.at`, then the oldest beyond `recalls` (by time, then query id), are
   * dropped with their adoptions.
   */
  recordRecall(record: RecallRecord): Promise<void>;
  /** Records that an agent opened a card from a recall; says what became of it (`AdoptionOutcome`). */
  recordAdoption(adoption: AdoptionRecord): Promise<AdoptionOutcome>;
  /** The recall kept under these ids, with what was opened from it, or null. */
  findRecall(session: string, query: string): Promise<StoredRecall | null>;
  /** Per card, the recalls at or after `since` (ms) that listed it and opened it; cards by id. */
  cardUsage(since: number): Promise<UsageWindow>;
  /**
   * Sets a session's lore switch (MCP `set_lore`), or with null forgets it, at `at` (`_lore-rules.ts`
   * says exactly how): a conversation carrying the session loads with it as `lore`.
   */
  setLore(session: string, lore: LoreSwitch | null, at: number): Promise<void>;
  /** Lets go of connections; later calls on this handle reject. Closing twice is harmless. */
  close(): Promise<void>;
}
