/**
 * The embedded Store: bun:sqlite at `<vault>/.lorecards/state.db` (`sqlite:<path>`), with the marker
 * secret (`marker-secret`) and the hit log (`hits.jsonl`) as files beside it. Every write is an
 * immediate transaction that reads the keys `planCommit` needs and applies its plan, so the
 * read-modify-write of one process cannot interleave with another's. Nothing is opened or created until
 * it is used: a cold process that only needs the secret or the hit log never opens the database, and
 * reading an empty hit log creates nothing.
 *
 * The store follows the path, not the open file: a long-lived process (the gateway) whose state.db is
 * deleted or replaced under it would otherwise keep writing to a file no one else can see. Before each
 * operation it compares the file at the path with the one it opened (device and inode, one stat of a
 * few microseconds); when they differ it closes the old connection (SQLite then neither checkpoints
 * into nor deletes anything of a moved database), opens the file now there, creating it when missing,
 * and says so in one line. A database that goes bad while open is moved aside and rebuilt, and the
 * operation is tried once more. The state folder is only ever made inside a folder that exists (the
 * vault): a vault that is gone is an error, never re-created.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { LoreError } from "../errors.ts";
import { checkVault, ensureStateDir } from "./_dir.ts";
import { appendHitLines, readHitLines } from "./_hits-file.ts";
import { advanceRow, type ConversationRow, emptyConversation, parseTimed, planCommit } from "./_rules.ts";
import { readOrCreateSecret } from "./_secret-file.ts";
import {
  type Connection,
  connect,
  isCorrupt,
  isSameFile,
  type ReplayRow,
  rebuild,
  wrap,
} from "./_sqlite-file.ts";
import type {
  CardRef,
  Conversation,
  ConversationChange,
  Limits,
  Placement,
  ReplayRecord,
  Store,
} from "./types.ts";

export interface SqliteStoreOptions {
  limits: Limits;
  /** Where the "moved aside and rebuilt" and "deleted or replaced" notices go. */
  warn: (line: string) => void;
}

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
  checkVault(vault);
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
  const guarded = async <T>(op: (c: Connection) => T): Promise<T> => {
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
  return {
    loadConversation: (id) => guarded((c) => load(c, id)),
    commitTurn: (id, change) =>
      guarded((c) => c.db.transaction(() => commit(c, id, change, limits)).immediate()),
    advanceTurn: (id, now) =>
      guarded((c) =>
        c.db
          .transaction(() => {
            const stored = rowOf(c, id);
            const row = advanceRow(stored, now);
            c.q.putConversation.run(id, row.turn, row.lastSeen, row.opening, row.timed);
            if (stored === null) evict(c, limits.conversations);
            return row.turn;
          })
          .immediate(),
      ),
    findByOpening: (opening) => guarded((c) => c.q.byOpening.get(opening)?.id ?? null),
    async markerSecret() {
      ensureOpen();
      // The secret goes with the state folder: deleted with it, a new one is made (or the one another
      // process made meanwhile is read), so the gateway and the hook keep recognising each other's blocks.
      if (secret === undefined || !existsSync(secretFile)) secret = readOrCreateSecret(secretFile, ensureDir);
      return secret;
    },
    async appendHits(entries) {
      ensureOpen();
      appendHitLines(hitsFile, entries, ensureDir);
    },
    async recentHits(limit) {
      ensureOpen();
      return readHitLines(hitsFile, limit);
    },
    async close() {
      closed = true;
      conn?.db.close();
      conn = undefined;
    },
  };
}

function rowOf(c: Connection, id: string): ConversationRow | null {
  const r = c.q.conversation.get(id);
  return r === null ? null : { turn: r.turn, lastSeen: r.last_seen, opening: r.opening, timed: r.timed };
}

function load(c: Connection, id: string): Conversation {
  const row = c.q.conversation.get(id);
  if (row === null) return emptyConversation(id);
  return {
    id,
    turn: row.turn,
    lastSeen: row.last_seen,
    injections: c.q.injections.all(id).map((r) => ({ id: r.card, turn: r.turn, version: r.version })),
    replays: c.q.replays.all(id).map(toRecord),
    timed: parseTimed(row.timed),
  };
}

function toRecord(r: ReplayRow): ReplayRecord {
  return {
    anchor: r.anchor,
    hash: r.hash,
    place: r.place as Placement,
    text: r.text,
    turn: r.turn,
    cards: JSON.parse(r.cards) as CardRef[],
  };
}

function commit(c: Connection, id: string, change: ConversationChange, limits: Limits): void {
  const plan = planCommit(
    { row: rowOf(c, id), injections: c.q.injectionKeys.all(id), replays: c.q.replayKeys.all(id) },
    change,
    limits,
  );
  const { row } = plan;
  c.q.putConversation.run(id, row.turn, row.lastSeen, row.opening, row.timed);
  for (const card of plan.dropInjections) c.q.dropInjection.run(id, card);
  for (const i of plan.putInjections) c.q.putInjection.run(id, i.id, i.turn, i.version);
  for (const r of plan.dropReplays) c.q.dropReplay.run(id, r.anchor, r.hash);
  const r = plan.putReplay;
  if (r) c.q.putReplay.run(id, r.anchor, r.hash, r.place, r.text, r.turn, JSON.stringify(r.cards));
  if (plan.created) evict(c, limits.conversations);
}

/** The conversation cap: the least recently seen go first, with everything they hold. */
function evict(c: Connection, max: number): void {
  for (const { id } of c.q.evict.all(max)) {
    c.q.dropInjections.run(id);
    c.q.dropReplays.run(id);
  }
}
