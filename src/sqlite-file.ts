/**
 * What the stores kept in a SQLite file of the vault's (state.db, history.db, style.db) open the same
 * way: a bun:sqlite connection in WAL mode with a busy timeout (Bun sets none, and the processes that
 * share a file, hooks, a gateway, the editor, would otherwise fail with SQLITE_BUSY), its schema made
 * or migrated once inside an immediate transaction; and a file that is not a database or turns out
 * corrupt told apart and moved aside with its -wal and -shm. When to rebuild, and what to say, is each
 * store's. (The card index, vault/_index-db.ts, is a cache with its own rules: no fsync, dropped whole.)
 */
import { Database } from "bun:sqlite";
import { existsSync, renameSync } from "node:fs";

const CORRUPT = new Set(["SQLITE_NOTADB", "SQLITE_CORRUPT"]);

/** A bun:sqlite error saying the file is not a database, or is damaged. */
export function isCorrupt(err: unknown): boolean {
  return typeof err === "object" && err !== null && CORRUPT.has(String((err as { code?: unknown }).code));
}

/** Moves `file` (and its -wal and -shm) aside as `<file>.corrupt-<now>`; returns that name. */
export function moveAside(file: string, now: number): string {
  const aside = `${file}.corrupt-${now}`;
  for (const suffix of ["", "-wal", "-shm"]) {
    if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
  }
  return aside;
}

export interface SqliteSchema {
  /** The schema's PRAGMA user_version now. */
  version: number;
  /** Takes a file at `from` (0: a new one) to `version`, stamping user_version; runs in the write lock. */
  migrate(db: Database, from: number): void;
}

/** A schema with one version so far: a new file gets `sql`, which stamps user_version `version`. */
export function firstSchema(version: number, sql: string): SqliteSchema {
  return {
    version,
    migrate: (db, from) => {
      if (from === 0) db.exec(sql);
    },
  };
}

function userVersion(db: Database): number {
  return db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version ?? 0;
}

/**
 * `file` opened (made when `create`), `strict`, in WAL mode with a busy timeout, at the schema's
 * version; closed again when any of that throws. The schema (and its user_version stamp, a write) is
 * touched only when behind, and the version read again inside the write lock: another process may
 * have migrated the file meanwhile.
 */
export function openSqlite(file: string, create: boolean, schema: SqliteSchema): Database {
  const db = new Database(file, { create, strict: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    if (userVersion(db) < schema.version)
      db.transaction(() => schema.migrate(db, userVersion(db))).immediate();
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
