/**
 * The embedded Store: bun:sqlite at `<vault>/.lorecards/state.db` (`sqlite:<path>`), with the marker
 * secret (`marker-secret`) and the hit log (`hits.jsonl`) as files beside it. Every write runs in an
 * immediate transaction that reads the keys `planCommit` needs and applies its plan, so the
 * read-modify-write of one process cannot interleave with another's. The writes made in one turn of
 * the event loop share one transaction (group commit, _write-queue.ts), and each resolves only once
 * that transaction is committed; the hit log lines of one turn go to the file in one append the same
 * way. A read of a conversation with a write still queued commits the queue first, so a handle always
 * reads its own writes. Turn records and per-day totals are written the same way (_sqlite-turns.ts),
 * and so are index recalls and adoptions (_sqlite-recalls.ts).
 * Nothing is opened or created until it is used: a cold process that only needs
 * the secret or the hit log never opens the database, and reading an empty hit log creates nothing.
 *
 * The store follows the path, not the open file: a long-lived process (the gateway) whose state.db is
 * deleted or replaced under it would otherwise keep writing to a file no one else can see. Before each
 * read and each group commit it compares the file at the path with the one it opened (device and
 * inode, one stat of a few microseconds); when they differ it closes the old connection (SQLite then
 * neither checkpoints into nor deletes anything of a moved database), opens the file now there,
 * creating it when missing, and says so in one line. A database that goes bad while open is moved
 * aside and rebuilt, and the operation is tried once more. The state folder is only ever made inside
 * a folder that exists (the vault): a vault that is gone is an error, never re-created.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { LoreError } from "../errors.ts";
import { isCorrupt } from "../sqlite-file.ts";
import { checkVaultRoot } from "../vault/_root.ts";
import { ensureStateDir } from "./_dir.ts";
import { appendHitLines, readHitLines } from "./_hits-file.ts";
import { advanceRow, emptyConversation, parseTimed, planCommit } from "./_rules.ts";
import { readOrCreateSecret } from "./_secret-file.ts";
import {
  type Connection,
  connect,
  isSameFile,
  putRow,
  type ReplayRow,
  rebuild,
  rowOf,
  wrap,
} from "./_sqlite-file.ts";
import { cardUsage, findRecall, recordAdoption, recordRecall } from "./_sqlite-recalls.ts";
import {
  readConversations,
  readDays,
  readTurns,
  readTurnsSince,
  recordTurn,
  recordUsage,
} from "./_sqlite-turns.ts";
import { WriteQueue } from "./_write-queue.ts";
import type { HitEntry } from "./hits.ts";
import type {
  CardRef,
  Conversation,
  ConversationChange,
  Limits,
  Placement,
  ReplayRecord,
  Store,
  Tier,
} from "./types.ts";

export interface SqliteStoreOptions {
  limits: Limits;
  /** Where the "moved aside and rebuilt" and "deleted or replaced" notices go. */
  warn: (line: string) => void;
}

/** What the writes of one group commit share: the connection, and whether one stored a new conversation. */
interface Batch {
  c: Connection;
  created: boolean;
}

/** The write-queue key of recall and adoption writes (no conversation id is empty). */
const RECALLS = "";

export function statePath(vaultRoot: string): string {
  return path.join(vaultRoot, ".lorecards", "state.db");
}

export function hitsPath(vaultRoot: string): string {
  return path.join(vaultRoot, ".lorecards", "hits.jsonl");
}

export function secretPath(vaultRoot: string): string {
  return path.join(vaultRoot, ".lorecards", "marker-secret");
}

export function openSqliteStore(file: string, options: SqliteStoreOptions): Store {
  const { limits, warn } = options;
  const dir = path.dirname(file);
  const vault = path.dirname(dir);
  checkVaultRoot(vault);
  const ensureDir = () => void ensureStateDir(vault, path.basename(dir));
  const secretFile = path.join(dir, "marker-secret");
  const hitsFile = path.join(dir, "hits.jsonl");
  let conn: Connection | undefined;
  let secret: string | undefined;
  let closed = false;

  /** The connection to the file now at the path; one deleted or replaced under us is opened anew. */
  const current = (): Connection => {
    if (conn !== undefined && isSameFile(file, conn.file)) return conn;
    if (conn !== undefined) {
      conn.db.close();
      conn = undefined;
      warn(`lorecards: state ${file} was deleted or replaced while in use; opened the file now at that path`);
    }
    ensureDir();
    conn = connect(file, warn);
    return conn;
  };

  const ensureOpen = (): void => {
    if (closed) throw new LoreError("internal", `the state store ${file} is closed`);
  };

  // One retry after a rebuild: a database that went bad under us costs its contents, never the request.
  const guardedNow = <T>(op: (c: Connection) => T): T => {
    ensureOpen();
    try {
      return op(current());
    } catch (err) {
      if (!isCorrupt(err) || conn === undefined) throw wrap(err, file);
      conn.db.close();
      conn = rebuild(file, warn, err);
      try {
        return op(conn);
      } catch (again) {
        throw wrap(again, file);
      }
    }
  };
  const guarded = async <T>(op: (c: Connection) => T): Promise<T> => guardedNow(op);

  // Writes wait for the next turn of the event loop and are committed together (_write-queue.ts); the
  // conversation cap is applied once per batch, after its writes.
  const writes = new WriteQueue<Batch>((body) =>
    guardedNow((c) =>
      c.db
        .transaction(() => {
          const batch: Batch = { c, created: false };
          body(batch);
          if (batch.created) evict(c, limits.conversations);
        })
        .immediate(),
    ),
  );
  // The hit log too: the lines of one turn go to the file in one append.
  const hits = new WriteQueue<HitEntry[]>((body) => {
    const batch: HitEntry[] = [];
    body(batch);
    appendHitLines(hitsFile, batch, ensureDir);
  });
  /** A read sees this handle's queued writes: those it depends on are committed first. */
  const settled = (id?: string): void => {
    if (id === undefined ? writes.size > 0 : writes.has(id)) writes.flush();
  };

  return {
    async loadConversation(id) {
      ensureOpen();
      settled(id);
      return guarded((c) => load(c, id));
    },
    async commitTurn(id, change) {
      ensureOpen();
      return writes.add(id, (b) => {
        if (commit(b.c, id, change, limits)) b.created = true;
      });
    },
    async advanceTurn(id, now) {
      ensureOpen();
      return writes.add(id, (b) => {
        const stored = rowOf(b.c, id);
        const row = advanceRow(stored, now);
        putRow(b.c, id, row);
        if (stored === null) b.created = true;
        return row.turn;
      });
    },
    async findByOpening(opening) {
      ensureOpen();
      // Any queued write may give a conversation this opening or see it later than the one stored.
      settled();
      return guarded((c) => c.q.byOpening.get(opening)?.id ?? null);
    },
    async markerSecret() {
      ensureOpen();
      // The secret goes with the state folder: deleted with it, a new one is made (or the one another
      // process made meanwhile is read), so the gateway and the hook keep recognising each other's blocks.
      if (secret === undefined || !existsSync(secretFile)) secret = readOrCreateSecret(secretFile, ensureDir);
      return secret;
    },
    async appendHits(entries) {
      ensureOpen();
      return hits.add("hits", (batch) => void batch.push(...entries));
    },
    async recentHits(limit) {
      ensureOpen();
      hits.flush();
      return readHitLines(hitsFile, limit);
    },
    async recordTurn(record) {
      ensureOpen();
      return writes.add(record.conversation, (b) => {
        if (recordTurn(b.c, record, limits)) b.created = true;
      });
    },
    async recordUsage(conversation, turn, usage, at) {
      ensureOpen();
      return writes.add(conversation, (b) => {
        if (recordUsage(b.c, { conversation, turn, at }, usage, limits)) b.created = true;
      });
    },
    async turns(conversation, limit) {
      ensureOpen();
      settled(conversation);
      return limit <= 0 ? [] : guarded((c) => readTurns(c, conversation, limit));
    },
    async conversations(limit) {
      ensureOpen();
      settled();
      return limit <= 0 ? [] : guarded((c) => readConversations(c, limit));
    },
    async turnsSince(since) {
      ensureOpen();
      settled();
      return guarded((c) => readTurnsSince(c, since));
    },
    async days(sinceDay) {
      ensureOpen();
      settled();
      return guarded((c) => readDays(c, sinceDay));
    },
    async recordRecall(record) {
      ensureOpen();
      return writes.add(RECALLS, (b) => recordRecall(b.c.db, record, limits));
    },
    async recordAdoption(adoption) {
      ensureOpen();
      return writes.add(RECALLS, (b) => recordAdoption(b.c.db, adoption));
    },
    async findRecall(session, query) {
      ensureOpen();
      settled(RECALLS);
      return guarded((c) => findRecall(c.db, session, query));
    },
    async cardUsage(since) {
      ensureOpen();
      settled(RECALLS);
      return guarded((c) => cardUsage(c.db, since));
    },
    async close() {
      if (!closed) {
        writes.flush();
        hits.flush();
      }
      closed = true;
      conn?.db.close();
      conn = undefined;
    },
  };
}

function load(c: Connection, id: string): Conversation {
  const row = c.q.conversation.get(id);
  if (row === null) return emptyConversation(id);
  return {
    id,
    turn: row.turn,
    lastSeen: row.last_seen,
    injections: c.q.injections.all(row.n).map((r) => ({ id: r.card, turn: r.turn, version: r.version })),
    replays: c.q.replays.all(row.n).map(toRecord),
    timed: parseTimed(row.timed),
  };
}

function toRecord(r: ReplayRow): ReplayRecord {
  const record: ReplayRecord = {
    anchor: r.anchor,
    hash: r.hash,
    place: r.place as Placement,
    text: r.text,
    turn: r.turn,
    cards: JSON.parse(r.cards) as CardRef[],
  };
  if (r.role !== null) record.role = r.role as NonNullable<ReplayRecord["role"]>;
  if (r.tier !== null) record.tier = r.tier as Tier;
  return record;
}

/** Applies one commit; true when it stored the conversation for the first time (the cap then applies). */
function commit(c: Connection, id: string, change: ConversationChange, limits: Limits): boolean {
  const stored = rowOf(c, id);
  const plan = planCommit(
    stored === null
      ? { row: null, injections: [], replays: [] }
      : { row: stored, injections: c.q.injectionKeys.all(stored.n), replays: c.q.replayKeys.all(stored.n) },
    change,
    limits,
  );
  const n = putRow(c, id, plan.row);
  for (const card of plan.dropInjections) c.q.dropInjection.run(n, card);
  for (const i of plan.putInjections) c.q.putInjection.run(n, i.id, i.turn, i.version);
  for (const r of plan.dropReplays) c.q.dropReplay.run(n, r.anchor, r.hash);
  const r = plan.putReplay;
  if (r) {
    const cards = JSON.stringify(r.cards);
    c.q.putReplay.run(n, r.anchor, r.hash, r.place, r.text, r.turn, cards, r.role ?? null, r.tier ?? null);
  }
  return plan.created;
}

/** The conversation cap: the least recently seen go first, with everything they hold. */
function evict(c: Connection, max: number): void {
  for (const { n } of c.q.evict.all(max)) {
    c.q.dropInjections.run(n);
    c.q.dropReplays.run(n);
    c.q.dropTurns.run(n);
  }
}
