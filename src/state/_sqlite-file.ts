/**
 * One bun:sqlite connection to a state file: opened in WAL mode with a busy timeout (Bun sets none, and
 * concurrent processes would otherwise fail with SQLITE_BUSY), migrated to the current schema version,
 * its statements prepared. A file that is not a database, or turns out corrupt, is renamed aside with
 * its -wal and -shm and rebuilt empty.
 */

import type { Database, Statement } from "bun:sqlite";
import { statSync } from "node:fs";
import { describeError, LoreError } from "../errors.ts";
import { isCorrupt, moveAside, openSqlite, type SqliteSchema } from "../sqlite-file.ts";
import { lazyStatements } from "../sqlite-statements.ts";

/**
 * A conversation's rows in the other tables are keyed by its number `n`, given in the order
 * conversations are first stored, not by its id (a client's UUID or a hash, in no order): new rows go
 * at the end of each table and evicted ones, the least recently seen, mostly come from its start, so
 * a commit writes a few pages where random keys would write one per table and conversation.
 */
const TABLES_4 = `
CREATE TABLE conversations (
  n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, turn INTEGER NOT NULL, last_seen INTEGER NOT NULL,
  opening TEXT, timed TEXT);
CREATE TABLE injections (
  conversation INTEGER NOT NULL, card TEXT NOT NULL, turn INTEGER NOT NULL, version TEXT NOT NULL,
  PRIMARY KEY (conversation, card)) WITHOUT ROWID;
CREATE TABLE replays (
  conversation INTEGER NOT NULL, anchor INTEGER NOT NULL, hash TEXT NOT NULL, place TEXT NOT NULL,
  text TEXT NOT NULL, turn INTEGER NOT NULL, cards TEXT NOT NULL,
  PRIMARY KEY (conversation, anchor, hash)) WITHOUT ROWID;
`;
const INDEXES = `
CREATE INDEX conversations_seen ON conversations (last_seen);
CREATE INDEX conversations_opening ON conversations (opening, last_seen);
`;
/**
 * Version 5: a replay record's role and tier; turn records (the record as JSON, with the columns the
 * reads select and order by); per-day totals as JSON (stats.ts `Share`), kept apart so they outlive
 * the conversations.
 */
const ADDED_5 = `
ALTER TABLE replays ADD COLUMN role TEXT;
ALTER TABLE replays ADD COLUMN tier TEXT;
CREATE TABLE turns (
  conversation INTEGER NOT NULL, turn INTEGER NOT NULL, at INTEGER NOT NULL, surface TEXT NOT NULL,
  record TEXT NOT NULL, PRIMARY KEY (conversation, turn)) WITHOUT ROWID;
CREATE INDEX turns_at ON turns (at);
CREATE TABLE days (day TEXT PRIMARY KEY, totals TEXT NOT NULL) WITHOUT ROWID;
`;
/**
 * Version 6: index recalls (README "Index mode and adoption"), numbered in the order they are stored,
 * their listed cards as JSON; the adoptions of each, keyed by the recall's number. Kept apart from
 * the conversations: their own cap and age drop them (_recall-rules.ts).
 */
const ADDED_6 = `
CREATE TABLE recalls (
  n INTEGER PRIMARY KEY, session TEXT NOT NULL, query TEXT NOT NULL, at INTEGER NOT NULL,
  surface TEXT NOT NULL, cards TEXT NOT NULL, UNIQUE (session, query));
CREATE INDEX recalls_at ON recalls (at, query, session);
CREATE TABLE adoptions (
  recall INTEGER NOT NULL, card TEXT NOT NULL, at INTEGER NOT NULL,
  PRIMARY KEY (recall, card)) WITHOUT ROWID;
`;
/** Version 7: the name a person gave a conversation in the editor. */
const ADDED_7 = `
ALTER TABLE conversations ADD COLUMN name TEXT;
`;
/** Version 8: sessions' lore switches (`setLore`), kept apart from the conversations (_lore-rules.ts). */
const ADDED_8 = `
CREATE TABLE lore_switches (session TEXT PRIMARY KEY, lore TEXT NOT NULL, at INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX lore_switches_at ON lore_switches (at, session);
`;
const SCHEMA = `${TABLES_4}${INDEXES}${ADDED_5}${ADDED_6}${ADDED_7}${ADDED_8}PRAGMA user_version = 8;`;

/** Each step takes a database from version `i + 1` to `i + 2`; a new file gets SCHEMA at once. */
const MIGRATIONS = [
  `ALTER TABLE conversations ADD COLUMN opening TEXT;
   CREATE INDEX IF NOT EXISTS conversations_opening ON conversations (opening, last_seen);
   PRAGMA user_version = 2;`,
  // 2 → 3: the timed-effects memory of a conversation (JSON), on its row.
  `ALTER TABLE conversations ADD COLUMN timed TEXT;
   PRAGMA user_version = 3;`,
  // 3 → 4: rows keyed by the conversation's number; numbered from the least recently seen.
  `ALTER TABLE conversations RENAME TO old_conversations;
   ALTER TABLE injections RENAME TO old_injections;
   ALTER TABLE replays RENAME TO old_replays;
   DROP INDEX IF EXISTS conversations_seen;
   DROP INDEX IF EXISTS conversations_opening;
   ${TABLES_4}
   INSERT INTO conversations (id, turn, last_seen, opening, timed)
     SELECT id, turn, last_seen, opening, timed FROM old_conversations ORDER BY last_seen, id;
   INSERT INTO injections SELECT c.n, i.card, i.turn, i.version
     FROM old_injections i JOIN conversations c ON c.id = i.conversation;
   INSERT INTO replays SELECT c.n, r.anchor, r.hash, r.place, r.text, r.turn, r.cards
     FROM old_replays r JOIN conversations c ON c.id = r.conversation;
   DROP TABLE old_conversations;
   DROP TABLE old_injections;
   DROP TABLE old_replays;
   ${INDEXES}
   PRAGMA user_version = 4;`,
  // 4 → 5: replay records' role and tier, turn records, per-day totals; every row kept.
  `${ADDED_5}
   PRAGMA user_version = 5;`,
  // 5 → 6: index recalls and their adoptions; every row of every other table kept as it is.
  `${ADDED_6}
   PRAGMA user_version = 6;`,
  // 6 → 7: conversations' names.
  `${ADDED_7}
   PRAGMA user_version = 7;`,
  // 7 → 8: sessions' lore switches.
  `${ADDED_8}
   PRAGMA user_version = 8;`,
];
export const SCHEMA_VERSION = MIGRATIONS.length + 1;

export interface ReplayRow {
  anchor: number;
  hash: string;
  place: string;
  text: string;
  turn: number;
  cards: string;
  role: string | null;
  tier: string | null;
}

interface RowOfConversation {
  n: number;
  turn: number;
  last_seen: number;
  opening: string | null;
  timed: string | null;
}

/** Statements by conversation take its number `n` (see TABLES_4), except those that find it by id. */
export interface Queries {
  begin: Statement<unknown, []>;
  commit: Statement<unknown, []>;
  rollback: Statement<unknown, []>;
  conversation: Statement<RowOfConversation, [string]>;
  injections: Statement<{ card: string; turn: number; version: string }, [number]>;
  replays: Statement<ReplayRow, [number]>;
  injectionKeys: Statement<{ id: string; turn: number }, [number]>;
  replayKeys: Statement<{ anchor: number; hash: string; turn: number }, [number]>;
  byOpening: Statement<{ id: string }, [string]>;
  /** Inserts or updates by id; returns the conversation's number. */
  putConversation: Statement<{ n: number }, [string, number, number, string | null, string | null]>;
  putInjection: Statement<unknown, [number, string, number, string]>;
  dropInjection: Statement<unknown, [number, string]>;
  putReplay: Statement<
    unknown,
    [number, number, string, string, string, number, string, string | null, string | null]
  >;
  dropReplay: Statement<unknown, [number, number, string]>;
  evict: Statement<{ n: number }, [number]>;
  /** Each takes the numbers of the conversations as a JSON array. */
  dropInjectionsOf: Statement<unknown, [string]>;
  dropReplaysOf: Statement<unknown, [string]>;
  dropTurnsOf: Statement<unknown, [string]>;
  turn: Statement<{ record: string }, [number, number]>;
  turnNumbers: Statement<{ turn: number }, [number]>;
  putTurn: Statement<unknown, [number, number, number, string, string]>;
  dropTurn: Statement<unknown, [number, number]>;
  /** By conversation id: its newest `limit` records, oldest first. */
  turns: Statement<{ record: string }, [string, number]>;
  turnsSince: Statement<{ id: string; record: string }, [number]>;
  withTurns: Statement<
    { id: string; surface: string; turns: number; last_seen: number; name: string | null },
    [number]
  >;
  nameConversation: Statement<unknown, [string | null, string]>;
  day: Statement<{ totals: string }, [string]>;
  putDay: Statement<unknown, [string, string]>;
  days: Statement<{ day: string; totals: string }, [string]>;
  /** The switch of one session, or none. */
  lore: Statement<{ lore: string }, [string]>;
  putLore: Statement<unknown, [string, string, number]>;
  dropLore: Statement<unknown, [string]>;
  dropLoreBeyond: Statement<unknown, [number]>;
}

export interface Connection {
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

export function isSameFile(file: string, opened: FileId): boolean {
  const now = fileId(file);
  return now !== undefined && now.dev === opened.dev && now.ino === opened.ino;
}

export function connect(file: string, warn: (line: string) => void): Connection {
  try {
    return open(file);
  } catch (err) {
    if (!isCorrupt(err)) throw wrap(err, file);
    return rebuild(file, warn, err);
  }
}

/** A new file gets SCHEMA; an older one each step from its version on. */
const STATE_SCHEMA: SqliteSchema = {
  version: SCHEMA_VERSION,
  migrate: (db, from) => {
    if (from === 0) db.exec(SCHEMA);
    else for (const step of MIGRATIONS.slice(from - 1)) db.exec(step);
  },
};

function open(file: string): Connection {
  // The schema (and its user_version stamp, a write) only once per file: every hook run opens this.
  const db = openSqlite(file, true, STATE_SCHEMA);
  const id = fileId(file);
  if (id === undefined) {
    db.close();
    throw new Error(`${file} disappeared while being opened`);
  }
  return { db, q: prepare(db), file: id };
}

export function rebuild(file: string, warn: (line: string) => void, cause: unknown): Connection {
  const aside = moveAside(file, Date.now());
  warn(
    `lorecards: state ${file} could not be read (${describeError(cause)}); moved to ${aside}, rebuilt empty`,
  );
  return open(file);
}

function prepare(db: Database): Queries {
  return lazyStatements<Queries>(db, {
    // Immediate: the read-modify-write of one process never interleaves with another's (sqlite.ts).
    begin: "BEGIN IMMEDIATE",
    commit: "COMMIT",
    rollback: "ROLLBACK",
    conversation: "SELECT n, turn, last_seen, opening, timed FROM conversations WHERE id = ?",
    injections: "SELECT card, turn, version FROM injections WHERE conversation = ? ORDER BY turn, card",
    replays:
      "SELECT anchor, hash, place, text, turn, cards, role, tier FROM replays WHERE conversation = ? " +
      "ORDER BY anchor, turn, hash",
    injectionKeys: "SELECT card AS id, turn FROM injections WHERE conversation = ?",
    replayKeys: "SELECT anchor, hash, turn FROM replays WHERE conversation = ?",
    // `byMostRecentlySeen` in _rules.ts, in SQL (an index serves it).
    byOpening: "SELECT id FROM conversations WHERE opening = ? ORDER BY last_seen DESC, id LIMIT 1",
    putConversation:
      "INSERT INTO conversations (id, turn, last_seen, opening, timed) VALUES (?1, ?2, ?3, ?4, ?5) " +
      "ON CONFLICT (id) DO UPDATE SET turn = ?2, last_seen = ?3, opening = ?4, timed = ?5 RETURNING n",
    putInjection:
      "INSERT INTO injections (conversation, card, turn, version) VALUES (?1, ?2, ?3, ?4) " +
      "ON CONFLICT (conversation, card) DO UPDATE SET turn = ?3, version = ?4",
    dropInjection: "DELETE FROM injections WHERE conversation = ? AND card = ?",
    putReplay:
      "INSERT OR REPLACE INTO replays (conversation, anchor, hash, place, text, turn, cards, role, tier) " +
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    dropReplay: "DELETE FROM replays WHERE conversation = ? AND anchor = ? AND hash = ?",
    // The conversation cap's order (`byLeastRecentlySeen` in _rules.ts), in SQL: it spans the table.
    evict:
      "DELETE FROM conversations WHERE n IN (SELECT n FROM conversations ORDER BY last_seen ASC, id " +
      "LIMIT max(0, (SELECT count(*) FROM conversations) - ?)) RETURNING n",
    dropInjectionsOf: "DELETE FROM injections WHERE conversation IN (SELECT value FROM json_each(?))",
    dropReplaysOf: "DELETE FROM replays WHERE conversation IN (SELECT value FROM json_each(?))",
    dropTurnsOf: "DELETE FROM turns WHERE conversation IN (SELECT value FROM json_each(?))",
    turn: "SELECT record FROM turns WHERE conversation = ? AND turn = ?",
    turnNumbers: "SELECT turn FROM turns WHERE conversation = ?",
    putTurn: "INSERT OR REPLACE INTO turns (conversation, turn, at, surface, record) VALUES (?, ?, ?, ?, ?)",
    dropTurn: "DELETE FROM turns WHERE conversation = ? AND turn = ?",
    turns:
      "SELECT record FROM (SELECT record, turn, at FROM turns WHERE conversation = " +
      "(SELECT n FROM conversations WHERE id = ?1) ORDER BY turn DESC, at DESC LIMIT ?2) ORDER BY turn, at",
    // `byTime` in _turn-rules.ts, in SQL.
    turnsSince:
      "SELECT c.id, t.record FROM turns t JOIN conversations c ON c.n = t.conversation " +
      "WHERE t.at >= ? ORDER BY t.at, c.id, t.turn",
    // `byMostRecentlySeen` in _rules.ts; the surface of the newest record.
    withTurns:
      "SELECT c.id, c.last_seen, c.name, count(*) AS turns, (SELECT surface FROM turns s WHERE s.conversation = c.n " +
      "ORDER BY s.turn DESC LIMIT 1) AS surface FROM conversations c JOIN turns t ON t.conversation = c.n " +
      "GROUP BY c.n ORDER BY c.last_seen DESC, c.id LIMIT ?",
    nameConversation: "UPDATE conversations SET name = ? WHERE id = ?",
    day: "SELECT totals FROM days WHERE day = ?",
    putDay: "INSERT OR REPLACE INTO days (day, totals) VALUES (?, ?)",
    days: "SELECT day, totals FROM days WHERE day >= ? ORDER BY day",
    lore: "SELECT lore FROM lore_switches WHERE session = ?",
    putLore: "INSERT OR REPLACE INTO lore_switches (session, lore, at) VALUES (?, ?, ?)",
    dropLore: "DELETE FROM lore_switches WHERE session = ?",
    // `byLongestSet` in _lore-rules.ts, in SQL (an index serves it).
    dropLoreBeyond:
      "DELETE FROM lore_switches WHERE session IN (SELECT session FROM lore_switches ORDER BY at, session " +
      "LIMIT max(0, (SELECT count(*) FROM lore_switches) - ?))",
  });
}

export function wrap(err: unknown, file: string): LoreError {
  if (err instanceof LoreError) return err;
  return new LoreError("io_error", `state ${file}: ${describeError(err)}`, { cause: err });
}
