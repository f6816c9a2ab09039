/**
 * A long-running process's checkpoints, on a thread of their own. SQLite checkpoints a WAL database
 * in the commit that takes its -wal file past 1,000 pages: that commit copies the pages into the
 * database file and fsyncs both, a few milliseconds (tens on a busy disk) on the thread that
 * committed. In a gateway that thread serves the requests, and a new conversation writes some 13
 * pages, so one request in about 60 waited for a checkpoint: the gateway's p99.
 *
 * Here one worker thread of the process, with a connection of its own to each such file (the many
 * tenants of one process share it), copies the pages instead, once 1,000 have come since it last did,
 * with PASSIVE checkpoints: they never wait for, nor hold up, a reader or a writer. The
 * server's connection keeps a checkpoint of its own only as a backstop, at ten times the pages:
 * under load that never pauses, a passive checkpoint never catches up with the last frame, and only
 * a checkpoint inside a commit lets the -wal file start over (it then finds most pages copied
 * already). Each time the file starts over it is cut back (`journal_size_limit = 0`), so its size
 * says how many pages it holds. Other processes on the file (hooks) keep SQLite's own checkpoints.
 * A thread that fails says so once, and the connection checkpoints itself again as before.
 * https://www.sqlite.org/wal.html#automatic_checkpoint
 */
import type { Database } from "bun:sqlite";

/** SQLite's own threshold: pages in the -wal file before a checkpoint. */
const WAL_PAGES = 1000;
/** The server connection's own checkpoint, a backstop for load that never pauses. */
const BACKSTOP_PAGES = 10 * WAL_PAGES;
/** How often the thread looks at each -wal file's size. */
const EVERY_MS = 100;

/**
 * The thread's code, a string rather than a module, so that the compiled binary needs no second entry
 * point (as vault/_stage-writers.ts). It follows each path: a database replaced under it is opened
 * anew. A file that fails is dropped and named in a message.
 */
const CHECKPOINTER_SOURCE = `const { Database } = require("bun:sqlite");
const fs = require("node:fs");
// file -> { db, ino, copied: frames of its -wal file known copied (a smaller file has started over) }
const files = new Map();
let timer;
const close = (f) => {
  try { f.db?.close(); } catch {}
  f.db = undefined;
};
const drop = (file) => {
  const f = files.get(file);
  if (f) close(f);
  files.delete(file);
  if (files.size === 0) {
    clearInterval(timer);
    timer = undefined;
  }
};
// Opened whole or not at all: a lock met half way leaves nothing half set for the next look.
const open = (file, f, ino) => {
  const db = new Database(file, { readwrite: true, create: false });
  try {
    db.exec("PRAGMA busy_timeout = 50");
    f.frame = db.query("PRAGMA page_size").get().page_size + 24;
  } catch (err) {
    db.close();
    throw err;
  }
  f.db = db;
  f.ino = ino;
};
const look = (file, f, pages) => {
  const wal = fs.statSync(file + "-wal", { throwIfNoEntry: false });
  const now = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  // Gone, or another file at the path now (the store follows the path, and so does this).
  if (now === undefined || (f.db !== undefined && now.ino !== f.ino)) {
    close(f);
    f.copied = 0;
    return;
  }
  if (wal === undefined) return;
  if (f.db === undefined) open(file, f, now.ino);
  const frames = Math.floor(Math.max(0, wal.size - 32) / f.frame);
  if (frames < f.copied) f.copied = 0;
  if (frames - f.copied < pages) return;
  const done = f.db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
  if (done.checkpointed > 0) f.copied = done.checkpointed;
};
self.onmessage = (event) => {
  const { add, remove, pages, everyMs } = event.data;
  if (remove !== undefined) drop(remove);
  if (add === undefined) return;
  files.set(add, { copied: 0 });
  timer ??= setInterval(() => {
    for (const [file, f] of files) {
      try {
        look(file, f, pages);
      } catch (err) {
        // A lock another connection holds for a moment (a commit, a recovery): the next look.
        if (/^SQLITE_(BUSY|LOCKED)/.test(String(err && err.code))) continue;
        drop(file);
        postMessage({ file, error: String(err && err.message ? err.message : err) });
      }
    }
  }, everyMs);
};`;

export interface Checkpoints {
  /** Sets a (new) connection to the file to leave its checkpoints to the thread, while it can. */
  adopt(db: Database): void;
  /** This connection's file is no longer the thread's (its connection there is closed). */
  stop(): void;
}

/** The files the thread looks after in this process, with what each is told when the thread fails it. */
const looked = new Map<string, { count: number; failed: Set<(why: string) => void> }>();
let thread: Worker | undefined;

function theThread(): Worker {
  if (thread !== undefined) return thread;
  const url = URL.createObjectURL(new Blob([CHECKPOINTER_SOURCE], { type: "application/javascript" }));
  const worker = new Worker(url);
  // A worker keeps its process alive: this one must not keep a server that is done from exiting.
  (worker as Worker & { unref(): void }).unref();
  worker.onmessage = (event: MessageEvent<{ file: string; error: string }>) => {
    const entry = looked.get(event.data.file);
    looked.delete(event.data.file);
    for (const tell of entry?.failed ?? []) tell(event.data.error);
  };
  worker.onerror = (event: ErrorEvent) => {
    thread = undefined;
    const all = [...looked.values()];
    looked.clear();
    for (const entry of all) for (const tell of entry.failed) tell(`the thread failed: ${event.message}`);
  };
  thread = worker;
  return worker;
}

/** Checkpoints of `file` (a WAL database) on the process's thread; `warn` hears once if they fail. */
export function checkpointAside(file: string, warn: (line: string) => void): Checkpoints {
  let current: Database | undefined;
  let aside = true;
  const fail = (why: string) => {
    if (!aside) return;
    aside = false;
    warn(`lorecards: checkpoints of ${file} went back to the serving thread: ${why}`);
    try {
      current?.exec("PRAGMA wal_autocheckpoint = 1000; PRAGMA journal_size_limit = -1");
    } catch {
      // closed already: nothing to give back
    }
  };
  let entry = looked.get(file);
  if (entry === undefined) {
    entry = { count: 0, failed: new Set() };
    looked.set(file, entry);
    theThread().postMessage({ add: file, pages: WAL_PAGES, everyMs: EVERY_MS });
  }
  entry.count++;
  entry.failed.add(fail);
  return {
    adopt(db) {
      current = db;
      if (aside) db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}; PRAGMA journal_size_limit = 0`);
    },
    stop() {
      if (!aside) return;
      aside = false;
      const now = looked.get(file);
      if (now === undefined) return;
      now.failed.delete(fail);
      if (--now.count > 0) return;
      looked.delete(file);
      thread?.postMessage({ remove: file });
    },
  };
}
