/**
 * The in-memory Store (`memory:`): everything in this process's heap, gone when it exits. It exists to
 * prove the seam: it applies the same rules (`_rules.ts`) and passes the same contract suite as SQLite,
 * so recall and the surfaces never depend on what is behind a Store. Useful on its own for a gateway
 * that should remember nothing on disk. Every operation runs to the end without awaiting, so each is
 * atomic; handles opened on one `MemoryState` share it, as processes share a state.db.
 */

import { randomHex } from "../vault/index.ts";
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
import { type HitEntry, normalizeHit } from "./hits.ts";
import type { Injection, Limits, ReplayRecord, Store } from "./types.ts";

/** The hit log keeps this many newest entries (a file grows; a heap should not). */
const HITS_KEPT = 10_000;

interface Stored {
  row: ConversationRow;
  injections: Map<string, Injection>;
  /** By `keyOf(record)`. */
  replays: Map<string, ReplayRecord>;
}

export interface MemoryState {
  conversations: Map<string, Stored>;
  secret: string;
  /** Oldest first. */
  hits: HitEntry[];
}

export function memoryState(): MemoryState {
  return { conversations: new Map(), secret: randomHex(24), hits: [] };
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
      const next: Stored = c ?? { row: plan.row, injections: new Map(), replays: new Map() };
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
        conversations.set(id, { row, injections: new Map(), replays: new Map() });
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
    async close() {
      closed = true;
    },
  };
}
