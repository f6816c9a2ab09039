/**
 * A long-running process's checkpoints, on a thread of their own. SQLite checkpoints a WAL database
 * in the commit that takes its -wal file past 1,000 pages: that commit copies the pages into the
 * database file and fsyncs both, a few milliseconds (tens on a busy disk) on the thread that
 * committed. In a gateway that thread serves the requests, and a new conversation writes some 13
 * pages, so one request in about 60 waited for a checkpoint: the gateway's p99.
 *
 * Here one worker thread of the process, with a connection of its own to each such file (the many
 * tenants of one process share it), copies the pages instead, once 1,000 have come since the last
 * copy, with PASSIVE checkpoints: they never wait for, nor hold up, a reader or a writer. It counts
 * the pages in the wal-index (the -shm file's header: the log's last frame and the last one copied),
 * so looking costs one small read. The server's connection keeps a checkpoint of its own only as a
 * backstop, at ten times the pages: under load that never pauses, a passive checkpoint never catches
 * up with the last frame, and only a checkpoint inside a commit lets the log start over (it then finds
 * most pages copied already).
 *
 * The log starts over from its first frame without being cut back: cutting a -wal file of 10,000
 * pages (40 MB) down took the serving thread 20 ms (the kernel dropping its cached pages), every 465
 * requests of a gateway under steady load. So the file keeps the size the busiest stretch gave it,
 * and the thread cuts it back (a TRUNCATE checkpoint) once the database has been still for a while
 * (STILL_LOOKS): a request then rarely meets it. Other processes on the file (hooks) keep SQLite's
 * own checkpoints. A thread that fails says so once, and the connection checkpoints itself again.
 * https://www.sqlite.org/wal.html#automatic_checkpoint https://www.sqlite.org/walformat.html
 */
import type { Database } from "bun:sqlite";

/** SQLite's own threshold: pages in the -wal file before a checkpoint. */
const WAL_PAGES = 1000;
/** The server connection's own checkpoint, a backstop for load that never pauses. */
const BACKSTOP_PAGES = 10 * WAL_PAGES;
/** How often the thread looks at each file's wal-index. */
const EVERY_MS = 100;
/** Looks with nothing written before a -wal file is cut back: two seconds still. */
const STILL_LOOKS = 20;
/** A -wal file at most this large is left as it is (256 pages). */
const CUT_FROM_BYTES = 1024 * 1024;

/**
 * The thread's code, a string rather than a module, so that the compiled binary needs no second entry
 * point (as vault/_stage-writers.ts). It follows each path: a database replaced under it is opened
 * anew. A file that fails is dropped and named in a message.
 */
const CHECKPOINTER_SOURCE = `const { Database } = require("bun:sqlite");
const fs = require("node:fs");
const little = require("node:os").endianness() === "LE";
// file -> { db, ino, last: the log's last frame at the last look, still: looks since it moved }
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
  } catch (err) {
    db.close();
    throw err;
  }
  f.db = db;
  f.ino = ino;
};
// The wal-index header (walformat.html, in the machine's byte order): the log's last valid frame
// (mxFrame, offset 16) and the last one a checkpoint copied (nBackfill, offset 96). Read without
// SQLite's locks, it may be a moment old: it only decides when to look closer.
const header = Buffer.alloc(100);
const walIndex = (file) => {
  let fd;
  try {
    fd = fs.openSync(file + "-shm", "r");
    if (fs.readSync(fd, header, 0, 100, 0) < 100) return undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  const frames = little ? header.readUInt32LE(16) : header.readUInt32BE(16);
  const copied = little ? header.readUInt32LE(96) : header.readUInt32BE(96);
  return { frames, copied };
};
const look = (file, f, pages, still, cutFrom) => {
  const now = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  // Gone, or another file at the path now (the store follows the path, and so does this).
  if (now === undefined || (f.db !== undefined && now.ino !== f.ino)) {
    close(f);
    return;
  }
  const wal = walIndex(file);
  if (wal === undefined) return;
  f.still = wal.frames === f.last ? f.still + 1 : 0;
  f.last = wal.frames;
  if (wal.frames - wal.copied >= pages) {
    if (f.db === undefined) open(file, f, now.ino);
    f.db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
    return;
  }
  if (f.still !== still) return;
  const size = fs.statSync(file + "-wal", { throwIfNoEntry: false })?.size ?? 0;
  if (size <= cutFrom) return;
  if (f.db === undefined) open(file, f, now.ino);
  f.db.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
};
self.onmessage = (event) => {
  const { add, remove, pages, still, cutFrom, everyMs } = event.data;
  if (remove !== undefined) drop(remove);
  if (add === undefined) return;
  files.set(add, { last: -1, still: 0 });
  timer ??= setInterval(() => {
    for (const [file, f] of files) {
      try {
        look(file, f, pages, still, cutFrom);
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
    theThread().postMessage({
      add: file,
      pages: WAL_PAGES,
      still: STILL_LOOKS,
      cutFrom: CUT_FROM_BYTES,
      everyMs: EVERY_MS,
    });
  }
  entry.count++;
  entry.failed.add(fail);
  return {
    adopt(db) {
      current = db;
      if (aside) db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}; PRAGMA journal_size_limit = -1`);
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
