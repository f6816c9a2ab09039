/**
 * The conversation rules of the Store contract, written once: how a commit merges into what is stored
 * (a new clock on a lower turn, the later turn of a card, the first replay record for a message, the
 * caps) and the orders that decide ties. Pure functions over keys and turns: a backend reads what
 * `planCommit` needs, inside its own transaction, and applies the plan it gets back as it is.
 */

import type {
  Conversation,
  ConversationChange,
  Injection,
  Limits,
  ReplayRecord,
  TimedRecords,
} from "./types.ts";

/** The conversation's own row. */
export interface ConversationRow {
  turn: number;
  lastSeen: number;
  opening: string | null;
  /** The timed memory as stored: JSON (`timedText`), passed through untouched by commits without one. */
  timed: string | null;
}

export interface ReplayKey {
  anchor: number;
  hash: string;
}

/** What a commit needs to know of a stored conversation: keys and turns, no text. */
export interface StoredKeys {
  row: ConversationRow | null;
  injections: readonly { id: string; turn: number }[];
  replays: readonly (ReplayKey & { turn: number })[];
}

/** What to write: `put` rows replace any stored row with the same key. */
export interface CommitPlan {
  row: ConversationRow;
  /** Stored for the first time: the conversation cap applies. */
  created: boolean;
  dropInjections: string[];
  putInjections: Injection[];
  dropReplays: ReplayKey[];
  putReplay: ReplayRecord | null;
}

export function planCommit(stored: StoredKeys, change: ConversationChange, limits: Limits): CommitPlan {
  // The client trimmed its history: a new clock, and what came from the abandoned later turns is gone.
  const newClock = stored.row !== null && change.turn < stored.row.turn;
  const survives = (turn: number) => !newClock || turn <= change.turn;

  const ledger = new Map<string, { id: string; turn: number }>();
  for (const i of stored.injections) if (survives(i.turn)) ledger.set(i.id, i);
  const put = new Map<string, Injection>();
  for (const inj of change.injections ?? []) {
    const before = ledger.get(inj.id);
    const merged = { id: inj.id, version: inj.version, turn: Math.max(before?.turn ?? inj.turn, inj.turn) };
    ledger.set(inj.id, merged);
    put.set(inj.id, merged);
  }
  // Within a cap everything is kept: the sort that picks what stays is only needed past it (a long
  // conversation's commit sorted its hundreds of keys every turn for nothing).
  const cards =
    ledger.size <= limits.cardsPerConversation
      ? null
      : new Set(
          [...ledger.values()]
            .sort(byRecency)
            .slice(0, limits.cardsPerConversation)
            .map((i) => i.id),
        );
  const hasCard = (id: string) => (cards === null ? ledger.has(id) : cards.has(id));

  const records: (ReplayKey & { turn: number })[] = stored.replays.filter((r) => survives(r.turn));
  const fresh = change.replay;
  const first = fresh !== undefined && !records.some((r) => sameKey(r, fresh));
  if (first) records.push(fresh);
  // Within the cap a stored record stays when it survives the clock, or when the fresh one takes its key.
  const kept =
    records.length <= limits.replaysPerConversation
      ? null
      : new Set(records.sort(byNearestEnd).slice(0, limits.replaysPerConversation).map(keyOf));
  const isKept = (r: ReplayKey & { turn: number }) =>
    kept === null ? survives(r.turn) || (first && sameKey(r, fresh)) : kept.has(keyOf(r));

  return {
    row: {
      turn: change.turn,
      lastSeen: Math.max(stored.row?.lastSeen ?? change.now, change.now),
      opening: stored.row?.opening ?? change.opening ?? null,
      timed:
        change.timed !== undefined
          ? timedText(change.timed, limits.cardsPerConversation)
          : newClock
            ? null
            : (stored.row?.timed ?? null),
    },
    created: stored.row === null,
    // A record dropped by a new clock whose key comes back in this change is replaced, not dropped.
    dropInjections: stored.injections.filter((i) => !hasCard(i.id)).map((i) => i.id),
    putInjections: [...put.values()].filter((i) => hasCard(i.id)),
    dropReplays: stored.replays.filter((r) => !isKept(r)).map(({ anchor, hash }) => ({ anchor, hash })),
    putReplay: first && isKept(fresh) ? fresh : null,
  };
}

/** The row after `advanceTurn`: one turn on, seen at `now`, opening kept. */
export function advanceRow(row: ConversationRow | null, now: number): ConversationRow {
  return {
    turn: (row?.turn ?? 0) + 1,
    lastSeen: Math.max(row?.lastSeen ?? now, now),
    opening: row?.opening ?? null,
    timed: row?.timed ?? null,
  };
}

/**
 * The stored form of a timed memory: its `max` entries that fired last (then by id), as JSON with
 * the ids sorted, so equal memories are equal bytes; null for an empty one.
 */
export function timedText(timed: TimedRecords, max: number): string | null {
  const ids = Object.keys(timed)
    .sort((a, b) => timed[b]!.last - timed[a]!.last || compareText(a, b))
    .slice(0, max)
    .sort(compareText);
  if (ids.length === 0) return null;
  return JSON.stringify(Object.fromEntries(ids.map((id) => [id, timed[id]])));
}

/** A stored timed memory read back; text that is not one reads as none. */
export function parseTimed(text: string | null): TimedRecords {
  if (text === null) return {};
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as TimedRecords)
      : {};
  } catch {
    return {};
  }
}

/** A conversation never seen, or evicted. */
export function emptyConversation(id: string): Conversation {
  return { id, turn: 0, lastSeen: 0, injections: [], replays: [], timed: {} };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The order `loadConversation` lists the ledger in: by turn, then id. */
export function byTurn(a: { id: string; turn: number }, b: { id: string; turn: number }): number {
  return a.turn - b.turn || compareText(a.id, b.id);
}

/** The order `loadConversation` lists replay records in: by anchor, then turn, then hash. */
export function byAnchor(a: ReplayKey & { turn: number }, b: ReplayKey & { turn: number }): number {
  return a.anchor - b.anchor || a.turn - b.turn || compareText(a.hash, b.hash);
}

/** Which cards the cap keeps first: the latest turn, then the smallest id. */
function byRecency(a: { id: string; turn: number }, b: { id: string; turn: number }): number {
  return b.turn - a.turn || compareText(a.id, b.id);
}

/** Which replay records the cap keeps first: the highest anchor, then the latest turn. */
function byNearestEnd(a: ReplayKey & { turn: number }, b: ReplayKey & { turn: number }): number {
  return b.anchor - a.anchor || b.turn - a.turn || compareText(a.hash, b.hash);
}

/** Which conversation the cap drops first: the least recently seen, then the smallest id. */
export function byLeastRecentlySeen(
  a: { id: string; lastSeen: number },
  b: { id: string; lastSeen: number },
): number {
  return a.lastSeen - b.lastSeen || compareText(a.id, b.id);
}

/** Which conversation `findByOpening` answers: the most recently seen, then the smallest id. */
export function byMostRecentlySeen(
  a: { id: string; lastSeen: number },
  b: { id: string; lastSeen: number },
): number {
  return b.lastSeen - a.lastSeen || compareText(a.id, b.id);
}

export function keyOf(r: ReplayKey): string {
  return `${r.anchor}\u0000${r.hash}`;
}

function sameKey(a: ReplayKey, b: ReplayKey): boolean {
  return a.anchor === b.anchor && a.hash === b.hash;
}
