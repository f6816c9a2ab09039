/**
 * The in-memory Store (`memory:`): everything in this process's heap, gone when it exits. It exists to
 * prove the seam: it applies the same rules (`_rules.ts`) and passes the same contract suite as SQLite,
 * so recall and the surfaces never depend on what is behind a Store. Useful on its own for a gateway
 * that should remember nothing on disk. Every operation runs to the end without awaiting, so each is
 * atomic; handles opened on one `MemoryState` share it, as processes share a state.db.
 */

import { randomHex } from "../vault/index.ts";
import {
  adoptionOutcome,
  byOldest,
  keptSince,
  normalIds,
  normalRecall,
  tallyUsage,
} from "./_recall-rules.ts";
import {
  advanceRow,
  byAnchor,
  byLeastRecentlySeen,
  byMostRecentlySeen,
  byTurn,
  type ConversationRow,
  emptyConversation,
  keyOf,
  parseTimed,
  planCommit,
} from "./_rules.ts";
import { byTime, byTurnNumber, planTurn, planUsage, seenRow, type TurnPlan } from "./_turn-rules.ts";
import { type HitEntry, normalizeHit } from "./hits.ts";
import { addShare, dayTotals, emptyShare, type Share } from "./stats.ts";
import type { Injection, Limits, ReplayRecord, Store, StoredRecall, TurnRecord } from "./types.ts";

/** The hit log keeps this many newest entries (a file grows; a heap should not). */
const HITS_KEPT = 10_000;

interface Stored {
  row: ConversationRow;
  injections: Map<string, Injection>;
  /** By `keyOf(record)`. */
  replays: Map<string, ReplayRecord>;
  /** Turn records by turn. */
  turns: Map<number, TurnRecord>;
}

export interface MemoryState {
  conversations: Map<string, Stored>;
  secret: string;
  /** Oldest first. */
  hits: HitEntry[];
  /** Per-day totals by `YYYY-MM-DD`: they outlive the conversations. */
  days: Map<string, Share>;
  /** Index recalls by `recallKey`, with what was opened from each. */
  recalls: Map<string, StoredRecall>;
}

export function memoryState(): MemoryState {
  return {
    conversations: new Map(),
    secret: randomHex(24),
    hits: [],
    days: new Map(),
    recalls: new Map(),
  };
}

const recallKey = (session: string, query: string) => `${session}\u0000${query}`;

function emptyStored(row: ConversationRow): Stored {
  return { row, injections: new Map(), replays: new Map(), turns: new Map() };
}

export interface MemoryStoreOptions {
  limits: Limits;
  /** Share state with other handles; a fresh, empty state by default. */
  state?: MemoryState;
}

export function openMemoryStore(options: MemoryStoreOptions): Store {
  const { limits } = options;
  const state = options.state ?? memoryState();
  let closed = false;
  const live = (): MemoryState => {
    if (closed) throw new Error("the memory state store is closed");
    return state;
  };

  /** A conversation stored for the first time may push out the least recently seen ones. */
  const evict = (conversations: Map<string, Stored>): void => {
    const excess = conversations.size - limits.conversations;
    if (excess <= 0) return;
    const order = [...conversations].map(([id, c]) => ({ id, lastSeen: c.row.lastSeen }));
    for (const { id } of order.sort(byLeastRecentlySeen).slice(0, excess)) conversations.delete(id);
  };

  /** One turn write: the conversation seen (and stored, the cap then applying), the plan applied. */
  const writeTurn = (id: string, at: number, plan: (c: Stored | undefined) => TurnPlan): void => {
    const { conversations, days } = live();
    const c = conversations.get(id);
    const p = plan(c);
    const next = c ?? emptyStored(seenRow(null, at));
    next.row = seenRow(next.row, at);
    for (const t of p.drop) next.turns.delete(t);
    if (p.put) next.turns.set(p.put.turn, p.put);
    for (const d of p.days) days.set(d.day, addShare(days.get(d.day) ?? emptyShare(), d.share, d.sign));
    if (c === undefined) {
      conversations.set(id, next);
      evict(conversations);
    }
  };

  return {
    async loadConversation(id) {
      const c = live().conversations.get(id);
      if (c === undefined) return emptyConversation(id);
      return structuredClone({
        id,
        turn: c.row.turn,
        lastSeen: c.row.lastSeen,
        injections: [...c.injections.values()].sort(byTurn),
        replays: [...c.replays.values()].sort(byAnchor),
        timed: parseTimed(c.row.timed),
      });
    },
    async commitTurn(id, change) {
      const { conversations } = live();
      const c = conversations.get(id);
      const plan = planCommit(
        {
          row: c?.row ?? null,
          injections: [...(c?.injections.values() ?? [])],
          replays: [...(c?.replays.values() ?? [])],
        },
        change,
        limits,
      );
      const next: Stored = c ?? emptyStored(plan.row);
      next.row = plan.row;
      for (const card of plan.dropInjections) next.injections.delete(card);
      for (const i of plan.putInjections) next.injections.set(i.id, { ...i });
      for (const r of plan.dropReplays) next.replays.delete(keyOf(r));
      if (plan.putReplay) next.replays.set(keyOf(plan.putReplay), structuredClone(plan.putReplay));
      conversations.set(id, next);
      if (plan.created) evict(conversations);
    },
    async advanceTurn(id, now) {
      const { conversations } = live();
      const c = conversations.get(id);
      const row = advanceRow(c?.row ?? null, now);
      if (c) c.row = row;
      else {
        conversations.set(id, emptyStored(row));
        evict(conversations);
      }
      return row.turn;
    },
    async findByOpening(opening) {
      let found: { id: string; lastSeen: number } | null = null;
      for (const [id, c] of live().conversations) {
        if (c.row.opening !== opening) continue;
        const here = { id, lastSeen: c.row.lastSeen };
        if (found === null || byMostRecentlySeen(here, found) < 0) found = here;
      }
      return found?.id ?? null;
    },
    async markerSecret() {
      return live().secret;
    },
    async appendHits(entries) {
      const { hits } = live();
      hits.push(...entries.map(normalizeHit));
      if (hits.length > HITS_KEPT) hits.splice(0, hits.length - HITS_KEPT);
    },
    async recentHits(limit) {
      const { hits } = live();
      if (limit <= 0) return [];
      return hits.slice(-limit).reverse().map(normalizeHit);
    },
    async recordTurn(record) {
      writeTurn(record.conversation, record.at, (c) =>
        planTurn(storedTurns(c, record.turn), structuredClone(record), limits),
      );
    },
    async recordUsage(conversation, turn, usage, at) {
      writeTurn(conversation, at, (c) =>
        planUsage(storedTurns(c, turn), { conversation, turn, at }, { ...usage }, limits),
      );
    },
    async turns(conversation, limit) {
      const c = live().conversations.get(conversation);
      if (c === undefined || limit <= 0) return [];
      return structuredClone([...c.turns.values()].sort(byTurnNumber).slice(-limit));
    },
    async conversations(limit) {
      if (limit <= 0) return [];
      const found = [...live().conversations]
        .filter(([, c]) => c.turns.size > 0)
        .map(([id, c]) => {
          const newest = [...c.turns.values()].sort(byTurnNumber).at(-1)!;
          return { id, surface: newest.surface, turns: c.turns.size, lastSeen: c.row.lastSeen };
        });
      return found.sort(byMostRecentlySeen).slice(0, limit);
    },
    async turnsSince(since) {
      const out: TurnRecord[] = [];
      for (const c of live().conversations.values())
        for (const t of c.turns.values()) if (t.at >= since) out.push(t);
      return structuredClone(out.sort(byTime));
    },
    async days(sinceDay) {
      return [...live().days]
        .filter(([day, share]) => day >= sinceDay && share.turns > 0)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([day, share]) => dayTotals(day, share));
    },
    async recordRecall(record) {
      const { recalls } = live();
      const r = normalRecall(record, limits);
      const key = recallKey(r.session, r.query);
      if (!recalls.has(key)) recalls.set(key, { ...structuredClone(r), opened: {} });
      const since = keptSince(r.at, limits);
      const kept = [...recalls].filter(([, s]) => s.at >= since).sort(([, a], [, b]) => byOldest(a, b));
      const keep = new Set(
        kept.slice(Math.max(0, kept.length - Math.max(0, limits.recalls))).map(([k]) => k),
      );
      for (const k of recalls.keys()) if (!keep.has(k)) recalls.delete(k);
    },
    async recordAdoption(adoption) {
      const ids = normalIds(adoption.session, adoption.query);
      const stored = live().recalls.get(recallKey(ids.session, ids.query)) ?? null;
      const outcome = adoptionOutcome(stored, adoption.card);
      if (outcome === "recorded") stored!.opened[adoption.card] = adoption.at;
      return outcome;
    },
    async findRecall(session, query) {
      const ids = normalIds(session, query);
      return structuredClone(live().recalls.get(recallKey(ids.session, ids.query)) ?? null);
    },
    async cardUsage(since) {
      const inWindow = [...live().recalls.values()].filter((r) => r.at >= since).sort(byOldest);
      return structuredClone(tallyUsage(inWindow));
    },
    async close() {
      closed = true;
    },
  };
}

function storedTurns(c: Stored | undefined, turn: number) {
  return { old: c?.turns.get(turn) ?? null, turns: [...(c?.turns.keys() ?? [])] };
}
