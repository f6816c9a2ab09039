/**
 * The one domain layer: the Store, written once over a narrow driver (`_driver.ts`), as unjs/unstorage
 * puts one storage layer over many drivers. Every write reads what its rules need (`planCommit`,
 * `planTurn`, `planUsage`, the recall rules), inside the driver's transaction, and applies the plan it
 * gets back as it is; every read turns rows into the shapes of types.ts. So `sqlite:`, `memory:` and
 * `postgres:` keep the same rules because there is only one copy of them, and one contract suite
 * (test/state/contract.ts) checks all three.
 *
 * Writes are grouped (group commit, `_write-queue.ts`: those made in one turn of the event loop share
 * one transaction): all of them, for a file, which has one writer at a time; those of one conversation,
 * for a server, with many conversations' transactions at once (`_write-lanes.ts`), as the driver says.
 * Either way each resolves once it is committed, and the conversation cap is applied once per
 * transaction, after its writes. A read of a conversation with a
 * write of this handle still in flight waits for it, so a handle always reads its own writes. The hit
 * log's lines of one turn go to the driver in one append.
 */

import { LoreError } from "../errors.ts";
import type { Driver, Tx } from "./_driver.ts";
import { loreOf, normalSession, sessionsOf } from "./_lore-rules.ts";
import { adoptionOutcome, keptSince, normalIds, normalRecall, tallyUsage } from "./_recall-rules.ts";
import { advanceRow, emptyConversation, parseTimed, planCommit } from "./_rules.ts";
import { planTurn, planUsage, type StoredTurns, seenRow, type TurnPlan } from "./_turn-rules.ts";
import { WriteLanes } from "./_write-lanes.ts";
import { WriteQueue } from "./_write-queue.ts";
import { type HitEntry, normalizeHit } from "./hits.ts";
import { dayTotals } from "./stats.ts";
import type { ConversationChange, Limits, Store } from "./types.ts";

/** What the writes of one transaction share: its rows, and whether one stored a new conversation. */
interface Batch {
  tx: Tx;
  created: boolean;
}

/** The write-queue key of recall and adoption writes (no conversation id is empty). */
const RECALLS = "";
/** The write-queue key of lore switches (a conversation id of its own would only share its queue). */
const LORE = " lore";

export interface DomainOptions {
  limits: Limits;
  /** Names the store in the error a closed handle gives. */
  name: string;
  /** Errors that mean the backend could not be reached: a batch meeting one fails whole, no write retried. */
  lost?: (err: unknown) => boolean;
}

/**
 * How far past its cap the store may grow before it drops back to the cap, all at once. Dropping the
 * one least recently seen conversation for each new one made every new conversation of a store at its
 * cap rewrite the pages the oldest one's rows sat on (in SQLite, 4 statements and some 5 pages of the
 * log a request, about a tenth of an injecting request's CPU); a tenth of the cap dropped together
 * costs about what one did. Small caps (under 10) are kept exactly.
 */
export function evictionSlack(cap: number): number {
  return Math.floor(cap / 10);
}

export function storeOver(driver: Driver, options: DomainOptions): Store {
  const { limits } = options;
  let closed = false;
  const ensureOpen = (): void => {
    if (closed) throw new LoreError("internal", `the state store ${options.name} is closed`);
  };

  /** One transaction of writes; the conversation cap is applied once, after them, when one stored a new conversation. */
  const transact =
    (keys: readonly string[]) =>
    (body: (b: Batch) => Promise<void>): Promise<void> =>
      driver.transaction(keys, async (tx) => {
        const batch: Batch = { tx, created: false };
        await body(batch);
        if (batch.created) await tx.evict(limits.conversations, evictionSlack(limits.conversations));
      });
  const writes =
    driver.writes === "grouped"
      ? new WriteQueue<Batch>(transact([]), options.lost)
      : new WriteLanes<Batch>((key) => transact([key]), options.lost);
  const hits = new WriteQueue<HitEntry[]>(async (body) => {
    const batch: HitEntry[] = [];
    await body(batch);
    if (batch.length > 0) await driver.appendHits(batch);
  }, options.lost);

  /** A read sees this handle's writes: those about its keys (any, when none) are committed first. */
  const read = async <T>(
    key: string | readonly string[] | undefined,
    body: (tx: Tx) => Promise<T>,
  ): Promise<T> => {
    ensureOpen();
    const keys = typeof key === "string" ? [key] : key;
    if (keys === undefined ? writes.busy : keys.some((k) => writes.has(k))) await writes.flush();
    return driver.read(body);
  };
  /** `soon` false: nothing waits for the write (a response's usage); it may ride with a later commit. */
  const write = async <T>(key: string, body: (b: Batch) => Promise<T>, soon = true): Promise<T> => {
    ensureOpen();
    return writes instanceof WriteQueue ? writes.add(key, body, soon) : writes.add(key, body);
  };

  return {
    loadConversation: (id) =>
      read([id, LORE], async (tx) => {
        const { stored, lore } = await tx.load(id, sessionsOf(id));
        const switched = loreOf(lore);
        const conversation =
          stored === null
            ? emptyConversation(id)
            : {
                id,
                turn: stored.row.turn,
                lastSeen: stored.row.lastSeen,
                injections: stored.injections,
                replays: stored.replays,
                timed: parseTimed(stored.row.timed),
              };
        return switched === undefined ? conversation : { ...conversation, lore: switched };
      }),
    commitTurn: (id, change) =>
      write(id, async (b) => {
        if (await commit(b.tx, id, change, limits)) b.created = true;
      }),
    advanceTurn: (id, now) =>
      write(id, async (b) => {
        const stored = await b.tx.conversation(id);
        const row = advanceRow(stored, now);
        await b.tx.putConversation(id, row);
        if (stored === null) b.created = true;
        return row.turn;
      }),
    // Any queued write may give a conversation this opening or see it later than the one stored.
    findByOpening: (opening) => read(undefined, async (tx) => tx.byOpening(opening)),
    async markerSecret() {
      ensureOpen();
      return driver.markerSecret();
    },
    async appendHits(entries) {
      ensureOpen();
      return hits.add("hits", (batch) => void batch.push(...entries.map(normalizeHit)));
    },
    async recentHits(limit) {
      ensureOpen();
      await hits.flush();
      return limit <= 0 ? [] : driver.recentHits(limit);
    },
    recordTurn: (record) =>
      write(record.conversation, async (b) => {
        const { conversation, turn, at } = record;
        if (await writeTurn(b.tx, { conversation, turn, at }, (s) => planTurn(s, record, limits)))
          b.created = true;
      }),
    recordUsage: (conversation, turn, usage, at) =>
      write(
        conversation,
        async (b) => {
          const which = { conversation, turn, at };
          if (await writeTurn(b.tx, which, (s) => planUsage(s, which, usage, limits))) b.created = true;
        },
        false,
      ),
    turns: (conversation, limit) =>
      read(conversation, async (tx) => (limit <= 0 ? [] : tx.turns(conversation, limit))),
    conversations: (limit) => read(undefined, async (tx) => (limit <= 0 ? [] : tx.withTurns(limit))),
    nameConversation: (id, name) => write(id, async ({ tx }) => tx.nameConversation(id, name)),
    turnsSince: (since) => read(undefined, async (tx) => tx.turnsSince(since)),
    days: (sinceDay) =>
      read(undefined, async (tx) =>
        // A day whose only record moved to another day holds no turn: it is not listed.
        (await tx.days(sinceDay)).filter((d) => d.share.turns > 0).map((d) => dayTotals(d.day, d.share)),
      ),
    recordRecall: (record) =>
      write(RECALLS, async ({ tx }) => {
        const r = normalRecall(record, limits);
        await tx.putRecall(r);
        await tx.dropRecalls(keptSince(r.at, limits), Math.max(0, limits.recalls));
      }),
    recordAdoption: (adoption) =>
      write(RECALLS, async ({ tx }) => {
        const ids = normalIds(adoption.session, adoption.query);
        const stored = await tx.recall(ids.session, ids.query);
        const outcome = adoptionOutcome(stored, adoption.card);
        if (outcome === "recorded") await tx.putAdoption(stored!.n, adoption.card, adoption.at);
        return outcome;
      }),
    findRecall: (session, query) =>
      read(RECALLS, async (tx) => {
        const ids = normalIds(session, query);
        const found = await tx.recall(ids.session, ids.query);
        if (found === null) return null;
        const { n: _n, ...recall } = found;
        return recall;
      }),
    cardUsage: (since) => read(RECALLS, async (tx) => tallyUsage(await tx.recallsSince(since))),
    setLore: (session, lore, at) =>
      write(LORE, async ({ tx }) =>
        tx.putLore(normalSession(session), lore, at, Math.max(0, limits.loreSwitches)),
      ),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([writes.flush(), hits.flush()]);
      await driver.close();
    },
  };
}

/** Applies one commit; true when it stored the conversation for the first time (the cap then applies). */
async function commit(tx: Tx, id: string, change: ConversationChange, limits: Limits): Promise<boolean> {
  const plan = planCommit(await tx.commitKeys(id), change, limits);
  await tx.putCommit(id, plan.row, plan);
  return plan.created;
}

/**
 * One turn write: the conversation seen (stored with turn 0 if new), the plan applied, its shares
 * added to their days. True when it stored the conversation for the first time (the cap then applies).
 */
async function writeTurn(
  tx: Tx,
  at: { conversation: string; turn: number; at: number },
  plan: (stored: StoredTurns) => TurnPlan,
): Promise<boolean> {
  const k = await tx.turnKeys(at.conversation, at.turn);
  const p = plan(k.row === null ? { old: null, turns: [] } : { old: k.old, turns: k.turns });
  await tx.putTurn(at.conversation, seenRow(k.row, at.at), p.put, p.drop, p.days);
  return k.row === null;
}
