/**
 * The embedded Store: bun:sqlite at `<vault>/.lorecards/state.db` in WAL mode with a busy timeout (Bun
 * sets none, and concurrent processes would otherwise fail with SQLITE_BUSY). Every write is an
 * immediate transaction, so the read-modify-write of one process cannot interleave with another's.
 * A file that is not a database, or turns out corrupt, is renamed aside and rebuilt empty.
 *
 * The store follows the path, not the open file: a long-lived process (the gateway) whose state.db is
 * deleted or replaced under it would otherwise keep writing to a file no one else can see. Before each
 * operation it compares the file at the path with the one it opened (device and inode, one stat of a
 * few microseconds); when they differ it closes the old connection (SQLite then neither checkpoints
 * into nor deletes anything of a moved database), opens the file now there, creating it when missing,
 * and says so in one line. A state folder is only ever made inside a vault that exists.
 */

import { Database, type SQLQueryBindings, type Statement } from "bun:sqlite";
import { existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import path from "node:path";
import { describeError, LoreError } from "../errors.ts";
import { ensureStateDir } from "./_dir.ts";
import {
  type CardRef,
  type Conversation,
  type ConversationChange,
  LIMITS,
  type Placement,
  type ReplayRecord,
  type Store,
} from "./types.ts";

export interface SqliteStoreOptions {
  /** Defaults to `<vault>/.lorecards/state.db`. */
  file?: string;
  limits?: Partial<Limits>;
  /** Where the "moved aside and rebuilt" notice goes; defaults to stderr. */
  warn?: (line: string) => void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS conversations (
  id TEXT PRIMARY KEY, turn INTEGER NOT NULL, last_seen INTEGER NOT NULL, opening TEXT);
CREATE INDEX IF NOT EXISTS conversations_seen ON conversations (last_seen);
CREATE INDEX IF NOT EXISTS conversations_opening ON conversations (opening, last_seen);
CREATE TABLE IF NOT EXISTS injections (
  conversation TEXT NOT NULL, card TEXT NOT NULL, turn INTEGER NOT NULL, version TEXT NOT NULL,
  PRIMARY KEY (conversation, card)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS replays (
  conversation TEXT NOT NULL, anchor INTEGER NOT NULL, hash TEXT NOT NULL, place TEXT NOT NULL,
  text TEXT NOT NULL, turn INTEGER NOT NULL, cards TEXT NOT NULL,
  PRIMARY KEY (conversation, anchor, hash)) WITHOUT ROWID;
PRAGMA user_version = 2;
`;

/** Each step takes a database from version `i + 1` to `i + 2`. */
const MIGRATIONS = [
  `ALTER TABLE conversations ADD COLUMN opening TEXT;
   CREATE INDEX IF NOT EXISTS conversations_opening ON conversations (opening, last_seen);
   PRAGMA user_version = 2;`,
];
const VERSION = MIGRATIONS.length + 1;

type Limits = { [K in keyof typeof LIMITS]: number };

const CORRUPT = new Set(["SQLITE_NOTADB", "SQLITE_CORRUPT"]);

export function statePath(vaultRoot: string): string {
  return path.join(vaultRoot, ".lorecards", "state.db");
}

export function openSqliteStore(vaultRoot: string, options: SqliteStoreOptions = {}): Store {
  const file = options.file ?? statePath(vaultRoot);
  const limits: Limits = { ...LIMITS, ...options.limits };
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const connectHere = (): Connection => {
    if (options.file === undefined) ensureStateDir(vaultRoot);
    else mkdirSync(path.dirname(file), { recursive: true });
    return connect(file, warn);
  };
  let conn: Connection | undefined = connectHere();

  /** The connection to the file now at the path; one deleted or replaced under us is opened anew. */
  const current = (): Connection => {
    if (conn !== undefined && isSameFile(file, conn.file)) return conn;
    if (conn !== undefined) {
      conn.db.close();
      conn = undefined;
      warn(`lorecards: state ${file} was deleted or replaced while in use; opened the file now at that path`);
    }
    conn = connectHere();
    return conn;
  };

  // One retry after a rebuild: a database that went bad under us costs its contents, never the request.
  const guarded = <T>(op: (c: Connection) => T): T => {
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
    load: (id) => guarded((c) => load(c, id)),
    commit: (id, change) => guarded((c) => c.db.transaction(() => commit(c, id, change, limits)).immediate()),
    advance: (id, now) =>
      guarded((c) =>
        c.db
          .transaction(() => {
            const turn = (c.q.turn.get(id)?.turn ?? 0) + 1;
            c.q.upsertConversation.run(id, turn, now, null);
            capConversations(c, limits.conversations);
            return turn;
          })
          .immediate(),
      ),
    findByOpening: (opening) => guarded((c) => c.q.byOpening.get(opening)?.id ?? null),
    close: () => conn?.db.close(),
  };
}

interface Queries {
  conversation: Statement<{ turn: number; last_seen: number }, [string]>;
  turn: Statement<{ turn: number }, [string]>;
  injections: Statement<{ card: string; turn: number; version: string }, [string]>;
  replays: Statement<ReplayRow, [string]>;
  byOpening: Statement<{ id: string }, [string]>;
  upsertConversation: Statement<unknown, [string, number, number, string | null]>;
  upsertInjection: Statement<unknown, [string, string, number, string]>;
  insertReplay: Statement<unknown, [string, number, string, string, string, number, string]>;
}

interface ReplayRow {
  anchor: number;
  hash: string;
  place: string;
  text: string;
  turn: number;
  cards: string;
}

interface Connection {
  db: Database;
  q: Queries;
  /** Which file was opened, to notice when the path names another one. */
  file: FileId;
}

interface FileId {
  dev: bigint;
  ino: bigint;
}

function fileId(file: string): FileId | undefined {
  const s = statSync(file, { bigint: true, throwIfNoEntry: false });
  return s && { dev: s.dev, ino: s.ino };
}

function isSameFile(file: string, opened: FileId): boolean {
  const now = fileId(file);
  return now !== undefined && now.dev === opened.dev && now.ino === opened.ino;
}

function connect(file: string, warn: (line: string) => void): Connection {
  try {
    return open(file);
  } catch (err) {
    if (!isCorrupt(err)) throw wrap(err, file);
    return rebuild(file, warn, err);
  }
}

function open(file: string): Connection {
  const db = new Database(file, { create: true, strict: true });
  try {
    const id = fileId(file);
    if (id === undefined) throw new Error(`${file} disappeared while being opened`);
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    // The schema (and its user_version stamp, a write) only once per file: every hook run opens this.
    if (version(db) < VERSION) db.transaction(() => migrate(db)).immediate();
    return { db, q: prepare(db), file: id };
  } catch (err) {
    db.close();
    throw err;
  }
}

function version(db: Database): number {
  return db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version ?? 0;
}

/** Read again inside the write lock: another process may have migrated the file meanwhile. */
function migrate(db: Database): void {
  const from = version(db);
  if (from === 0) db.exec(SCHEMA);
  else for (const step of MIGRATIONS.slice(from - 1)) db.exec(step);
}

function rebuild(file: string, warn: (line: string) => void, cause: unknown): Connection {
  const aside = `${file}.corrupt-${Date.now()}`;
  for (const suffix of ["", "-wal", "-shm"]) {
    if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
  }
  warn(
    `lorecards: state ${file} could not be read (${describeError(cause)}); moved to ${aside}, rebuilt empty`,
  );
  return open(file);
}

function prepare(db: Database): Queries {
  return {
    conversation: db.query("SELECT turn, last_seen FROM conversations WHERE id = ?"),
    turn: db.query("SELECT turn FROM conversations WHERE id = ?"),
    injections: db.query(
      "SELECT card, turn, version FROM injections WHERE conversation = ? ORDER BY turn, card",
    ),
    replays: db.query(
      "SELECT anchor, hash, place, text, turn, cards FROM replays WHERE conversation = ? ORDER BY anchor, turn",
    ),
    byOpening: db.query("SELECT id FROM conversations WHERE opening = ? ORDER BY last_seen DESC, id LIMIT 1"),
    upsertConversation: db.query(
      "INSERT INTO conversations (id, turn, last_seen, opening) VALUES (?1, ?2, ?3, ?4) " +
        "ON CONFLICT (id) DO UPDATE SET turn = ?2, last_seen = max(last_seen, ?3), opening = coalesce(opening, ?4)",
    ),
    upsertInjection: db.query(
      "INSERT INTO injections (conversation, card, turn, version) VALUES (?1, ?2, ?3, ?4) " +
        "ON CONFLICT (conversation, card) DO UPDATE SET turn = max(turn, ?3), version = ?4",
    ),
    insertReplay: db.query(
      "INSERT OR IGNORE INTO replays (conversation, anchor, hash, place, text, turn, cards) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ),
  };
}

function load(c: Connection, id: string): Conversation {
  const row = c.q.conversation.get(id);
  if (row === null) return { id, turn: 0, lastSeen: 0, injections: [], replays: [] };
  return {
    id,
    turn: row.turn,
    lastSeen: row.last_seen,
    injections: c.q.injections.all(id).map((r) => ({ id: r.card, turn: r.turn, version: r.version })),
    replays: c.q.replays.all(id).map(toRecord),
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
  const stored = c.q.turn.get(id)?.turn;
  if (stored !== undefined && change.turn < stored) {
    // The client trimmed its history: a new clock, and what came from the abandoned later turns is gone.
    run(c.db, "DELETE FROM injections WHERE conversation = ? AND turn > ?", id, change.turn);
    run(c.db, "DELETE FROM replays WHERE conversation = ? AND turn > ?", id, change.turn);
  }
  c.q.upsertConversation.run(id, change.turn, change.now, change.opening ?? null);
  for (const inj of change.injections ?? []) c.q.upsertInjection.run(id, inj.id, inj.turn, inj.version);
  const r = change.replay;
  if (r) c.q.insertReplay.run(id, r.anchor, r.hash, r.place, r.text, r.turn, JSON.stringify(r.cards));
  run(
    c.db,
    "DELETE FROM injections WHERE conversation = ?1 AND card NOT IN " +
      "(SELECT card FROM injections WHERE conversation = ?1 ORDER BY turn DESC, card LIMIT ?2)",
    id,
    limits.cardsPerConversation,
  );
  run(
    c.db,
    "DELETE FROM replays WHERE conversation = ?1 AND (anchor, hash) NOT IN " +
      "(SELECT anchor, hash FROM replays WHERE conversation = ?1 ORDER BY anchor DESC, turn DESC LIMIT ?2)",
    id,
    limits.replaysPerConversation,
  );
  if (stored === undefined) capConversations(c, limits.conversations);
}

function capConversations(c: Connection, max: number): void {
  const dropped = c.db
    .query<{ id: string }, [number]>(
      "DELETE FROM conversations WHERE id IN (SELECT id FROM conversations ORDER BY last_seen ASC, id " +
        "LIMIT max(0, (SELECT count(*) FROM conversations) - ?)) RETURNING id",
    )
    .all(max);
  for (const { id } of dropped) {
    run(c.db, "DELETE FROM injections WHERE conversation = ?", id);
    run(c.db, "DELETE FROM replays WHERE conversation = ?", id);
  }
}

function run(db: Database, sql: string, ...params: SQLQueryBindings[]): void {
  db.query(sql).run(...params);
}

function isCorrupt(err: unknown): boolean {
  return typeof err === "object" && err !== null && CORRUPT.has(String((err as { code?: unknown }).code));
}

function wrap(err: unknown, file: string): LoreError {
  if (err instanceof LoreError) return err;
  return new LoreError("io_error", `state ${file}: ${describeError(err)}`, { cause: err });
}
