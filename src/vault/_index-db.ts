/**
 * The persisted index on disk: `<vault>/.lorecards/index.db`, one bun:sqlite file, so a cold process
 * reads only the rows it needs (the cards that fired) instead of decoding the whole index, and a change
 * writes only the rows that changed. Tables:
 *   meta   name → value: `kinds` (the kind table it was built for), `epoch` (random, new whenever the file is rebuilt), `gen` (bumped by every change),
 *          `pruned` (tombstones older than this were dropped), `checked` (ms of the last full check)
 *   dirs   folder (a kind's, or one below it at any depth) → its mtime (ns) when its files were last
 *          compared with the rows ("" = compare again next time; "none" = a kind folder that is missing)
 *   cards  path → its folder (`dir`), its kind's folder (`kdir`), mtime (ms, as a number: -1 = compare
 *          again), size, row (vault/_index-row.ts, which keeps the exact mtime in ns), the `gen` that
 *          wrote it, its status, and its key and title case-folded (`fkey`, `ftitle`: vault/lookup.ts
 *          finds a card by a folded name with an indexed look-up, never a table of every card)
 *          (STATUS: every recall reports the broken files, and a rebuild reads only the enabled
 *          cards, both without decoding every row)
 *   gone   path → the `gen` that removed it: what "what changed since" needs for deleted cards
 * Its layout (row format and schema) is the database's user_version. It is a cache: a file that is
 * not a database, is corrupt, or was built for another layout or kind table is dropped and rebuilt. A process that must not write (recall without `persist`) works on an
 * in-memory copy.
 */
import { Database, type Statement } from "bun:sqlite";
import fs from "node:fs";
import { lazyStatements } from "../sqlite-statements.ts";
import { madeStateDir } from "../state-dir.ts";
import { randomHex } from "./_fs.ts";
import { FORMAT } from "./_index-row.ts";
import { stateIn } from "./_links.ts";
import type { Vault } from "./paths.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dirs (dir TEXT PRIMARY KEY, mtime TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS cards (
  path TEXT PRIMARY KEY, dir TEXT NOT NULL, kdir TEXT NOT NULL, ms REAL NOT NULL, size INTEGER NOT NULL,
  row TEXT NOT NULL, gen INTEGER NOT NULL, status INTEGER NOT NULL, fkey TEXT, ftitle TEXT);
CREATE INDEX IF NOT EXISTS cards_dir ON cards (dir);
CREATE INDEX IF NOT EXISTS cards_kdir ON cards (kdir);
CREATE INDEX IF NOT EXISTS cards_broken ON cards (status) WHERE status = 2;
CREATE INDEX IF NOT EXISTS cards_gen ON cards (gen);
CREATE INDEX IF NOT EXISTS cards_fkey ON cards (fkey);
CREATE INDEX IF NOT EXISTS cards_ftitle ON cards (ftitle);
CREATE TABLE IF NOT EXISTS gone (path TEXT PRIMARY KEY, gen INTEGER NOT NULL) WITHOUT ROWID;
`;

/** Row layout and schema together (PRAGMA user_version): a file of another layout is rebuilt. */
export const LAYOUT = FORMAT * 100 + 6;

/** A row's status column. */
export const STATUS = { enabled: 0, disabled: 1, broken: 2 } as const;

export interface StoredStat {
  path: string;
  /** mtimeMs as a plain stat gives it (a folder scan skips the slower exact stat); -1: compare again. */
  ms: number;
  size: number;
}

export interface IndexQueries {
  meta: Statement<{ value: string }, [string]>;
  setMeta: Statement<unknown, [string, string]>;
  dirs: Statement<{ dir: string; mtime: string }, []>;
  setDir: Statement<unknown, [string, string]>;
  dropDir: Statement<unknown, [string]>;
  statsIn: Statement<StoredStat, [string]>;
  stat: Statement<StoredStat, [string]>;
  row: Statement<{ row: string }, [string]>;
  rowsIn: Statement<{ path: string; row: string }, [string]>;
  brokenRows: Statement<{ path: string; row: string }, []>;
  enabledRowsIn: Statement<{ path: string; row: string }, [string]>;
  put: Statement<
    unknown,
    [string, string, string, number, number, string, number, number, string | null, string | null]
  >;
  restat: Statement<unknown, [number, number, string]>;
  drop: Statement<unknown, [string]>;
  bury: Statement<unknown, [string, number]>;
  unbury: Statement<unknown, [string]>;
  changedSince: Statement<{ path: string }, [number]>;
  byFoldedKey: Statement<{ path: string }, [string]>;
  byFoldedTitle: Statement<{ path: string }, [string]>;
  goneSince: Statement<{ path: string }, [number]>;
  pruneGone: Statement<unknown, [number]>;
  count: Statement<{ n: number }, []>;
}

export interface IndexDb {
  db: Database;
  q: IndexQueries;
  /** False for the in-memory copy of a process that must not write. */
  onDisk: boolean;
}

export function indexPath(vault: Vault): string {
  return stateIn(vault.root, "index.db");
}

function prepare(db: Database): IndexQueries {
  return lazyStatements<IndexQueries>(db, {
    meta: "SELECT value FROM meta WHERE name = ?",
    setMeta: "INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)",
    dirs: "SELECT dir, mtime FROM dirs",
    setDir: "INSERT OR REPLACE INTO dirs (dir, mtime) VALUES (?, ?)",
    dropDir: "DELETE FROM dirs WHERE dir = ?",
    statsIn: "SELECT path, ms, size FROM cards WHERE dir = ?",
    stat: "SELECT path, ms, size FROM cards WHERE path = ?",
    row: "SELECT row FROM cards WHERE path = ?",
    rowsIn: "SELECT path, row FROM cards WHERE kdir = ?",
    brokenRows: `SELECT path, row FROM cards WHERE status = ${STATUS.broken}`,
    enabledRowsIn: `SELECT path, row FROM cards WHERE kdir = ? AND status = ${STATUS.enabled}`,
    put: "INSERT OR REPLACE INTO cards (path, dir, kdir, ms, size, row, gen, status, fkey, ftitle) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    restat: "UPDATE cards SET ms = ?, size = ? WHERE path = ?",
    drop: "DELETE FROM cards WHERE path = ?",
    bury: "INSERT OR REPLACE INTO gone (path, gen) VALUES (?, ?)",
    unbury: "DELETE FROM gone WHERE path = ?",
    changedSince: "SELECT path FROM cards WHERE gen > ?",
    byFoldedKey: "SELECT path FROM cards WHERE fkey = ?",
    byFoldedTitle: "SELECT path FROM cards WHERE ftitle = ?",
    goneSince: "SELECT path FROM gone WHERE gen > ?",
    pruneGone: "DELETE FROM gone WHERE gen <= ?",
    count: "SELECT count(*) AS n FROM cards",
  });
}

/** The value of a meta entry, or undefined. */
export function metaValue(idx: IndexDb, name: string): string | undefined {
  return idx.q.meta.get(name)?.value;
}

/** Empty every table and start a new epoch: the file is rebuilt for `kinds`. */
function reset(idx: IndexDb, kinds: string): void {
  idx.db.transaction(() => {
    idx.db.exec("DELETE FROM meta; DELETE FROM dirs; DELETE FROM cards; DELETE FROM gone;");
    idx.q.setMeta.run("kinds", kinds);
    idx.q.setMeta.run("epoch", randomHex(6));
    idx.q.setMeta.run("gen", "0");
    idx.q.setMeta.run("pruned", "0");
    idx.q.setMeta.run("checked", "0");
  })();
}

/** Tables of this layout: a database of another one has its tables dropped and made again. */
function ensureLayout(db: Database): void {
  const version = () => (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  if (version() === LAYOUT) return;
  db.transaction(() => {
    if (version() === LAYOUT) return; // another process did it first
    db.exec("DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS dirs; DROP TABLE IF EXISTS cards;");
    db.exec(`DROP TABLE IF EXISTS gone; ${SCHEMA} PRAGMA user_version = ${LAYOUT};`);
  }).immediate();
}

function connect(file: string): Database {
  const db = new Database(file, { create: true, strict: true });
  // Several processes (hooks, a gateway, the UI) share the file: wait for a writer instead of failing.
  // No fsync (synchronous = OFF): it is a cache, and the checkpoint a writing process runs as it exits
  // would otherwise cost every such hook ~1.5 ms. A power cut that damages it means a rebuild (a
  // corrupt file), or rows the next full check corrects.
  db.exec("PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;");
  ensureLayout(db);
  return db;
}

/** A private in-memory copy of the file (or an empty index): reading never changes the vault. */
function memoryCopy(file: string | undefined): Database {
  if (file !== undefined && fs.existsSync(file)) {
    try {
      const disk = new Database(file, { readonly: true, strict: true });
      try {
        disk.exec("PRAGMA busy_timeout = 5000");
        const copy = Database.deserialize(disk.serialize(), { strict: true });
        ensureLayout(copy);
        return copy;
      } finally {
        disk.close();
      }
    } catch {
      // unreadable or not a database: start empty
    }
  }
  const db = new Database(":memory:", { strict: true });
  ensureLayout(db);
  return db;
}

/** Drop a damaged file and its WAL side files (the index is a cache). */
function discard(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
}

/**
 * The index of `vault`, checked to be of this layout and kind table (else emptied for a rebuild).
 * `write: false` gives an in-memory copy that is never saved.
 */
export function openIndexDb(vault: Vault, kinds: string, write: boolean): IndexDb {
  let file: string | undefined;
  try {
    file = indexPath(vault);
  } catch {
    // a state folder that is a link (stateIn): the index is kept in memory only, read from nowhere
  }
  let db: Database | undefined;
  if (write && file !== undefined) {
    try {
      // Not recursive: a vault moved away while open must not come back as an empty folder. A state
      // folder that is a link is refused (stateIn): the index is then kept in memory.
      const state = stateIn(vault.root);
      if (!fs.existsSync(state)) {
        fs.mkdirSync(state);
        madeStateDir(state);
      }
      db = openChecked(file);
    } catch {
      db = undefined; // a read-only vault still works: it re-parses in memory each time
    }
  }
  const onDisk = db !== undefined;
  db ??= memoryCopy(file);
  const idx: IndexDb = { db, q: prepare(db), onDisk };
  if (metaValue(idx, "kinds") !== kinds) reset(idx, kinds);
  return idx;
}

function openChecked(file: string): Database {
  try {
    const db = connect(file);
    db.query("SELECT count(*) FROM meta").get();
    return db;
  } catch (err) {
    const code = (err as { code?: string }).code ?? "";
    if (code !== "SQLITE_NOTADB" && code !== "SQLITE_CORRUPT") throw err;
    discard(file);
    return connect(file);
  }
}
