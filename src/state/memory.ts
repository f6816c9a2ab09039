/**
 * The in-memory Store (`memory:`): everything in this process's heap, gone when it exits. A driver
 * (`_driver.ts`) of a few maps under the one domain layer (`_domain.ts`), so it keeps the rules the
 * other backends keep and passes the same contract suite: recall and the surfaces never depend on
 * what is behind a Store. Useful on its own for a gateway that should remember nothing on disk.
 * Handles opened on one `MemoryState` share it, as processes share a database; one mutex on the state
 * makes each transaction and each read whole, and an undo log rolls back a transaction that throws.
 * What goes in and what comes out are copies.
 */

import { randomHex } from "../vault/index.ts";
import { storeOver } from "./_domain.ts";
import type { Driver, NumberedRecall, Tx } from "./_driver.ts";
import { byLongestSet } from "./_lore-rules.ts";
import { byOldest } from "./_recall-rules.ts";
import {
  byAnchor,
  byLeastRecentlySeen,
  byMostRecentlySeen,
  byTurn,
  type ConversationRow,
  keyOf,
} from "./_rules.ts";
import { byTime, byTurnNumber } from "./_turn-rules.ts";
import type { HitEntry } from "./hits.ts";
import { addShare, emptyShare, type Share } from "./stats.ts";
import type { Injection, Limits, ReplayRecord, Store, TurnRecord } from "./types.ts";

/** The hit log keeps this many newest entries (a file grows; a heap should not). */
const HITS_KEPT = 10_000;

interface Stored {
  id: string;
  row: ConversationRow;
  /** What the person named it (`nameConversation`). */
  name?: string | null;
  injections: Map<string, Injection>;
  /** By `keyOf(record)`. */
  replays: Map<string, ReplayRecord>;
  /** Turn records by turn. */
  turns: Map<number, TurnRecord>;
}

export interface MemoryState {
  conversations: Map<string, Stored>;
  /** Index recalls by `recallKey`, and the key of each by number. */
  recalls: Map<string, NumberedRecall>;
  recallKeys: Map<number, string>;
  /** Per-day totals by `YYYY-MM-DD`: they outlive the conversations. */
  days: Map<string, Share>;
  /** Sessions' lore switches by session id. */
  lore: Map<string, { session: string; lore: string; at: number }>;
  /** Oldest first. */
  hits: HitEntry[];
  secret: string;
  /** The last number given to a recall. */
  counter: number;
  /** The tail of the transactions and reads waiting for the state, one at a time. */
  lock: Promise<void>;
}

export function memoryState(): MemoryState {
  return {
    conversations: new Map(),
    recalls: new Map(),
    recallKeys: new Map(),
    days: new Map(),
    lore: new Map(),
    hits: [],
    secret: randomHex(24),
    counter: 0,
    lock: Promise.resolve(),
  };
}

export interface MemoryStoreOptions {
  limits: Limits;
  /** Share state with other handles; a fresh, empty state by default. */
  state?: MemoryState;
}

export function openMemoryStore(options: MemoryStoreOptions): Store {
  return storeOver(memoryDriver(options.state ?? memoryState()), { limits: options.limits, name: "memory:" });
}

const recallKey = (session: string, query: string) => `${session}\u0000${query}`;
const copy = structuredClone;

/** Runs `body` alone on the state: the next one waits for it to settle. */
function exclusive<T>(state: MemoryState, body: () => Promise<T>): Promise<T> {
  const run = state.lock.then(body);
  state.lock = run.then(
    () => undefined,
    () => undefined,
  );
  return run;
}

function memoryDriver(state: MemoryState): Driver {
  return {
    writes: "grouped",
    transaction: (_keys, body) =>
      exclusive(state, async () => {
        const undo: (() => void)[] = [];
        try {
          return await body(memoryTx(state, undo));
        } catch (err) {
          for (const step of undo.reverse()) step();
          throw err;
        }
      }),
    read: (body) => exclusive(state, () => body(memoryTx(state, null))),
    async markerSecret() {
      return state.secret;
    },
    async appendHits(entries) {
      state.hits.push(...copy(entries));
      if (state.hits.length > HITS_KEPT) state.hits.splice(0, state.hits.length - HITS_KEPT);
    },
    async recentHits(limit) {
      return copy(state.hits.slice(-limit).reverse());
    },
    async close() {},
  };
}

/** The state's rows; each change notes how to take it back in `undo` (null: a read, which changes nothing). */
function memoryTx(state: MemoryState, undo: (() => void)[] | null): Tx {
  const note = (step: () => void): void => {
    if (undo === null) throw new Error("a read changed the memory state");
    undo.push(step);
  };
  /** Sets (or with `value` undefined, deletes) a key, noting the old value. */
  function set<K, V>(map: Map<K, V>, key: K, value: V | undefined): void {
    const had = map.has(key);
    const old = map.get(key);
    note(() => (had ? map.set(key, old as V) : map.delete(key)));
    if (value === undefined) map.delete(key);
    else map.set(key, value);
  }
  const putRow = (id: string, row: ConversationRow): Stored => {
    const c = state.conversations.get(id);
    if (c === undefined) {
      const fresh: Stored = {
        id,
        row: { ...row },
        injections: new Map(),
        replays: new Map(),
        turns: new Map(),
      };
      set(state.conversations, id, fresh);
      return fresh;
    }
    const before = c.row;
    note(() => {
      c.row = before;
    });
    c.row = { ...row };
    return c;
  };

  return {
    load(id, sessions) {
      const c = state.conversations.get(id);
      const switched = sessions.map((s) => state.lore.get(s)).find((l) => l !== undefined);
      const lore = switched?.lore ?? null;
      if (c === undefined) return { stored: null, lore };
      const stored = copy({
        row: c.row,
        injections: [...c.injections.values()].sort(byTurn),
        replays: [...c.replays.values()].sort(byAnchor),
      });
      return { stored, lore };
    },
    commitKeys(id) {
      const c = state.conversations.get(id);
      if (c === undefined) return { row: null, injections: [], replays: [] };
      return {
        row: { ...c.row },
        injections: [...c.injections.values()].map(({ id, turn }) => ({ id, turn })),
        replays: [...c.replays.values()].map(({ anchor, hash, turn }) => ({ anchor, hash, turn })),
      };
    },
    putCommit(id, row, change) {
      const c = putRow(id, row);
      for (const card of change.dropInjections) set(c.injections, card, undefined);
      for (const i of change.putInjections) set(c.injections, i.id, copy(i));
      for (const r of change.dropReplays) set(c.replays, keyOf(r), undefined);
      if (change.putReplay) set(c.replays, keyOf(change.putReplay), copy(change.putReplay));
    },
    conversation: (id) => copy(state.conversations.get(id)?.row ?? null),
    putConversation: (id, row) => void putRow(id, row),
    byOpening(opening) {
      const found = [...state.conversations.values()]
        .filter((c) => c.row.opening === opening)
        .map((c) => ({ id: c.id, lastSeen: c.row.lastSeen }))
        .sort(byMostRecentlySeen);
      return found[0]?.id ?? null;
    },
    evict(max, slack) {
      const excess = state.conversations.size - max;
      if (excess <= slack) return;
      const order = [...state.conversations.values()].map((c) => ({ id: c.id, lastSeen: c.row.lastSeen }));
      for (const { id } of order.sort(byLeastRecentlySeen).slice(0, excess))
        set(state.conversations, id, undefined);
    },

    turnKeys(id, turn) {
      const c = state.conversations.get(id);
      const old = c?.turns.get(turn);
      return {
        row: c === undefined ? null : { ...c.row },
        old: old === undefined ? null : copy(old),
        turns: [...(c?.turns.keys() ?? [])],
      };
    },
    putTurn(id, row, put, drop, days) {
      const c = putRow(id, row);
      for (const t of drop) set(c.turns, t, undefined);
      if (put) set(c.turns, put.turn, copy(put));
      for (const d of days)
        set(state.days, d.day, addShare(state.days.get(d.day) ?? emptyShare(), d.share, d.sign));
    },
    turns(id, limit) {
      const c = state.conversations.get(id);
      return c === undefined ? [] : copy([...c.turns.values()].sort(byTurnNumber).slice(-limit));
    },
    turnsSince(since) {
      const out: TurnRecord[] = [];
      for (const c of state.conversations.values())
        for (const t of c.turns.values()) if (t.at >= since) out.push(t);
      return copy(out.sort(byTime));
    },
    nameConversation(id, name) {
      const c = state.conversations.get(id);
      if (c === undefined) return false;
      const before = c.name;
      note(() => {
        c.name = before;
      });
      c.name = name;
      return true;
    },
    withTurns(limit) {
      const found = [...state.conversations.values()]
        .filter((c) => c.turns.size > 0)
        .map((c) => {
          const newest = [...c.turns.values()].sort(byTurnNumber).at(-1)!;
          const { lastSeen } = c.row;
          return { id: c.id, surface: newest.surface, turns: c.turns.size, lastSeen, name: c.name ?? null };
        });
      return found.sort(byMostRecentlySeen).slice(0, limit);
    },
    days: (sinceDay) =>
      [...state.days]
        .filter(([day]) => day >= sinceDay)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([day, share]) => ({ day, share: copy(share) })),

    putRecall(r) {
      const key = recallKey(r.session, r.query);
      if (state.recalls.has(key)) return;
      const n = ++state.counter;
      set(state.recalls, key, { ...copy(r), opened: {}, n });
      set(state.recallKeys, n, key);
    },
    dropRecalls(before, keep) {
      const kept = [...state.recalls.values()].filter((r) => r.at >= before).sort(byOldest);
      const keepers = new Set(kept.slice(Math.max(0, kept.length - keep)));
      for (const r of [...state.recalls.values()]) {
        if (keepers.has(r)) continue;
        set(state.recalls, recallKey(r.session, r.query), undefined);
        set(state.recallKeys, r.n, undefined);
      }
    },
    recall: (session, query) => copy(state.recalls.get(recallKey(session, query)) ?? null),
    putAdoption(n, card, at) {
      const key = state.recallKeys.get(n);
      const r = key === undefined ? undefined : state.recalls.get(key);
      if (r === undefined || card in r.opened) return;
      set(state.recalls, key!, { ...r, opened: { ...r.opened, [card]: at } });
    },
    putLore(session, lore, at, keep) {
      set(state.lore, session, lore === null ? undefined : { session, lore, at });
      const order = [...state.lore.values()].sort(byLongestSet);
      for (const l of order.slice(0, Math.max(0, order.length - keep))) set(state.lore, l.session, undefined);
    },
    recallsSince: (since) =>
      copy([...state.recalls.values()].filter((r) => r.at >= since).sort(byOldest)).map(
        ({ n: _n, ...r }) => r,
      ),
  };
}
