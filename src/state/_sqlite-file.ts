/**
 * One bun:sqlite connection to a state file: opened in WAL mode with a busy timeout (Bun sets none, and
 * concurrent processes would otherwise fail with SQLITE_BUSY), migrated to the current schema version,
 * its statements prepared (_sqlite-queries.ts). A file that is not a database, or turns out corrupt,
 * is renamed aside with its -wal and -shm and rebuilt empty.
 */

import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { describeError, LoreError } from "../errors.ts";
import { isCorrupt, moveAside, openSqlite, type SqliteSchema } from "../sqlite-file.ts";
import { LedgerMemo } from "./_sqlite-ledgers.ts";
import { prepare, type Queries } from "./_sqlite-queries.ts";

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
/**
 * Version 9: turn records and replay records in tables with rowids, their keys in an index beside.
 * A table without rowid keeps a row over about 1 KB of a 4 KB page (a turn record with its blocks'
 * text, most replay records) mostly on an overflow page of its own, so each such row written cost a
 * page of the log by itself, and each evicted one a read of that page and a change to the free list;
 * in a table with rowids rows up to about 4 KB share the table's last page. The index of openings
 * keeps only conversations that have one (most clients that name their conversations never do).
 */
const REBUILT_9 = `
ALTER TABLE turns RENAME TO old_turns;
CREATE TABLE turns (
  conversation INTEGER NOT NULL, turn INTEGER NOT NULL, at INTEGER NOT NULL, surface TEXT NOT NULL,
  record TEXT NOT NULL, PRIMARY KEY (conversation, turn));
INSERT INTO turns SELECT conversation, turn, at, surface, record FROM old_turns ORDER BY conversation, turn;
DROP TABLE old_turns;
CREATE INDEX turns_at ON turns (at);
ALTER TABLE replays RENAME TO old_replays;
CREATE TABLE replays (
  conversation INTEGER NOT NULL, anchor INTEGER NOT NULL, hash TEXT NOT NULL, place TEXT NOT NULL,
  text TEXT NOT NULL, turn INTEGER NOT NULL, cards TEXT NOT NULL, role TEXT, tier TEXT,
  PRIMARY KEY (conversation, anchor, hash));
INSERT INTO replays SELECT conversation, anchor, hash, place, text, turn, cards, role, tier
  FROM old_replays ORDER BY conversation, anchor, hash;
DROP TABLE old_replays;
DROP INDEX conversations_opening;
CREATE INDEX conversations_opening ON conversations (opening, last_seen) WHERE opening IS NOT NULL;
`;
const SCHEMA = `${TABLES_4}${INDEXES}${ADDED_5}${ADDED_6}${ADDED_7}${ADDED_8}${REBUILT_9}PRAGMA user_version = 9;`;

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
  // 8 → 9: turn and replay records in tables with rowids; every row kept.
  `${REBUILT_9}
   PRAGMA user_version = 9;`,
];
export const SCHEMA_VERSION = MIGRATIONS.length + 1;

export interface Connection {
  db: Database;
  q: Queries;
  /** The conversations' ledgers read lately, kept decoded while they are the file's. */
  ledgers: LedgerMemo;
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
  return { db, q: prepare(db), ledgers: new LedgerMemo(db), file: id };
}

export function rebuild(file: string, warn: (line: string) => void, cause: unknown): Connection {
  const aside = moveAside(file, Date.now());
  warn(
    `lorecards: state ${file} could not be read (${describeError(cause)}); moved to ${aside}, rebuilt empty`,
  );
  return open(file);
}

export function wrap(err: unknown, file: string): LoreError {
  if (err instanceof LoreError) return err;
  return new LoreError("io_error", `state ${file}: ${describeError(err)}`, { cause: err });
}
