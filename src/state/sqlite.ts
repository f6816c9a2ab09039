/**
 * The embedded Store: bun:sqlite at `<vault>/.lorecards/state.db` (`sqlite:<path>`), with the marker
 * secret (`marker-secret`) and the hit log (`hits.jsonl`) as files beside it. A driver (`_driver.ts`)
 * under the one domain layer (`_domain.ts`): each transaction is an immediate one (BEGIN IMMEDIATE),
 * so the read-modify-write of one process cannot interleave with another's, and the transactions of
 * the handles of one process on one file take turns (one connection's open transaction would
 * otherwise make another's wait on the file lock in a busy loop that never lets the first finish).
 * The rows are read and written by `_sqlite-tx.ts`.
 * Nothing is opened or created until it is used: a cold process that only needs the secret or the hit
 * log never opens the database, and reading an empty hit log creates nothing.
 *
 * The store follows the path, not the open file: a long-lived process (the gateway) whose state.db is
 * deleted or replaced under it would otherwise keep writing to a file no one else can see. Before each
 * read and each transaction it compares the file at the path with the one it opened (device and
 * inode, one stat of a few microseconds); when they differ it closes the old connection (SQLite then
 * neither checkpoints into nor deletes anything of a moved database), opens the file now there,
 * creating it when missing, and says so in one line. A watching store (`watch`: a gateway that watches
 * its vault) stats the file only when a watcher of it saw it change (deleted, replaced, written by a
 * checkpoint), failed, or a second has gone by (watched-path.ts), not on every request. A database
 * that goes bad while open is moved aside and rebuilt, and the operation is tried once more. A watching
 * store's checkpoints run on a thread of their own (sqlite-checkpoints.ts); a request's commit makes one
 * only as a backstop, every 10,000 pages. The state folder is only ever made inside a folder that
 * exists (the vault): a vault that is gone is an error, never re-created.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { type Checkpoints, checkpointAside } from "../sqlite-checkpoints.ts";
import { isCorrupt } from "../sqlite-file.ts";
import { stateIn } from "../vault/index.ts";
import { checkVaultRoot } from "../vault/root.ts";
import { watched } from "../watched-path.ts";
import { ensureStateDir } from "./_dir.ts";
import { storeOver } from "./_domain.ts";
import type { Driver, Tx } from "./_driver.ts";
import { appendHitLines, readHitLines } from "./_hits-file.ts";
import { readOrCreateSecret } from "./_secret-file.ts";
import { type Connection, connect, isSameFile, rebuild, wrap } from "./_sqlite-file.ts";
import { sqliteTx } from "./_sqlite-tx.ts";
import type { Limits, Store } from "./types.ts";

export interface SqliteStoreOptions {
  limits: Limits;
  /** Where the "moved aside and rebuilt" and "deleted or replaced" notices go. */
  warn: (line: string) => void;
  /** Watch the file instead of a stat per operation (a long-running process); off by default. */
  watch?: boolean;
  /** The watch's clock (tests move it). */
  now?: () => number;
}

export function statePath(vaultRoot: string): string {
  return stateIn(vaultRoot, "state.db");
}

export function hitsPath(vaultRoot: string): string {
  return stateIn(vaultRoot, "hits.jsonl");
}

export function secretPath(vaultRoot: string): string {
  return stateIn(vaultRoot, "marker-secret");
}

export function openSqliteStore(file: string, options: SqliteStoreOptions): Store {
  return storeOver(sqliteDriver(file, options), { limits: options.limits, name: file });
}

/** The transaction of this process on each file, which the next one on the same file waits for. */
const writing = new Map<string, Promise<unknown>>();

function sqliteDriver(file: string, options: SqliteStoreOptions): Driver {
  const { warn } = options;
  const now = options.now ?? performance.now.bind(performance);
  const dir = path.dirname(file);
  const vault = path.dirname(dir);
  checkVaultRoot(vault);
  const ensureDir = () => void ensureStateDir(vault, path.basename(dir));
  const secretFile = path.join(dir, "marker-secret");
  const hitsFile = path.join(dir, "hits.jsonl");
  let conn: Connection | undefined;
  let secret: string | undefined;
  /** This handle's open transaction: its reads wait for it, or they would read what it has not committed. */
  let open: Promise<unknown> = Promise.resolve();

  // Any event of the file's own watcher means it may not be the one opened now.
  const opened = watched(file, options.watch === true, () => true);
  // A long-running process checkpoints on a thread of its own, off the requests' (sqlite-checkpoints.ts).
  let checkpoints: Checkpoints | undefined;
  const adopted = (c: Connection): Connection => {
    if (options.watch !== true) return c;
    checkpoints ??= checkpointAside(file, warn);
    checkpoints.adopt(c.db);
    return c;
  };

  /** The connection to the file now at the path; one deleted or replaced under us is opened anew. */
  const current = (): Connection => {
    const at = now();
    if (conn !== undefined && opened.fresh(at)) return conn;
    if (conn !== undefined && isSameFile(file, conn.file)) {
      opened.seen(at, true);
      return conn;
    }
    opened.close();
    if (conn !== undefined) {
      conn.db.close();
      conn = undefined;
      warn(`lorecards: state ${file} was deleted or replaced while in use; opened the file now at that path`);
    }
    ensureDir();
    conn = adopted(connect(file, warn));
    opened.seen(now(), true);
    return conn;
  };

  // One retry after a rebuild: a database that went bad under us costs its contents, never the request.
  const guarded = async <T>(op: (c: Connection) => Promise<T>): Promise<T> => {
    try {
      return await op(current());
    } catch (err) {
      if (!isCorrupt(err) || conn === undefined) throw wrap(err, file);
      conn.db.close();
      opened.close();
      conn = adopted(rebuild(file, warn, err));
      try {
        return await op(conn);
      } catch (again) {
        throw wrap(again, file);
      }
    }
  };

  const immediate = async <T>(c: Connection, body: (tx: Tx) => Promise<T>): Promise<T> => {
    c.q.begin.run();
    try {
      const tx = sqliteTx(c);
      try {
        const result = await body(tx);
        tx.finish();
        c.q.commit.run();
        tx.committed();
        return result;
      } catch (err) {
        tx.abandoned();
        throw err;
      }
    } catch (err) {
      if (c.db.inTransaction) c.q.rollback.run();
      throw err;
    }
  };

  return {
    writes: "grouped",
    transaction(_keys, body) {
      const before = writing.get(file) ?? Promise.resolve();
      const run = before.then(() => guarded((c) => immediate(c, body)));
      const settled = run.catch(() => undefined);
      writing.set(file, settled);
      open = settled;
      void settled.then(() => {
        if (writing.get(file) === settled) writing.delete(file);
      });
      return run;
    },
    async read(body) {
      await open;
      return guarded((c) => body(sqliteTx(c)));
    },
    async markerSecret() {
      // The secret goes with the state folder: deleted with it, a new one is made (or the one another
      // process made meanwhile is read), so the gateway and the hook keep recognising each other's blocks.
      if (secret === undefined || !existsSync(secretFile)) secret = readOrCreateSecret(secretFile, ensureDir);
      return secret;
    },
    async appendHits(entries) {
      appendHitLines(hitsFile, entries, ensureDir);
    },
    async recentHits(limit) {
      return readHitLines(hitsFile, limit);
    },
    async close() {
      await open;
      opened.close();
      checkpoints?.stop();
      checkpoints = undefined;
      conn?.db.close();
      conn = undefined;
    },
  };
}
