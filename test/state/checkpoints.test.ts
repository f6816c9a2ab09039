// A long-running process's checkpoints run on a thread of their own (src/sqlite-checkpoints.ts): a
// commit that takes the -wal file past SQLite's 1,000 pages copies nothing into the database file and
// fsyncs nothing on the thread that committed (a gateway's request), and the thread copies it soon
// after. What is observable from outside: the wal-index (the -shm file) says how many frames the log
// holds and how many a checkpoint has copied into the database file. The database file alone is no
// witness: a checkpoint that runs beside a commit copies only the pages that commit did not touch, and
// leaves the file consistent only together with its log. The thread runs beside the commits, so only
// a connection whose thread looks elsewhere shows what its own commits do.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Checkpoints, checkpointAside } from "../../src/sqlite-checkpoints.ts";

let dir = "";
let db: Database | undefined;
let checkpoints: Checkpoints | undefined;
afterEach(() => {
  checkpoints?.stop();
  checkpoints = undefined;
  db?.close();
  db = undefined;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const ROWS = 3000; // a row a page: three times past SQLite's threshold

/** The table of these tests, in a WAL database at `file`. */
function walTable(file: string): Database {
  const d = new Database(file);
  d.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
  d.exec("CREATE TABLE t (n INTEGER PRIMARY KEY, pad TEXT NOT NULL)");
  return d;
}

function walDatabase(): { file: string; db: Database } {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-checkpoints-"));
  const file = path.join(dir, "state.db");
  return { file, db: walTable(file) };
}

/** Commits a row a page, each in its own transaction, as requests do. */
function commitPages(d: Database, from = 0, count = ROWS): void {
  const put = d.prepare("INSERT INTO t (n, pad) VALUES (?, ?)");
  for (let i = from; i < from + count; i++) put.run(i, "x".repeat(3000));
}

/**
 * Frames in the log that no checkpoint has copied yet, from the wal-index of the unix VFS: its header's
 * mxFrame (offset 16) less the checkpoint's nBackfill (offset 96), in the machine's byte order.
 * https://www.sqlite.org/walformat.html
 */
function uncopied(file: string): { frames: number; copied: number; left: number } {
  const shm = fs.readFileSync(`${file}-shm`).subarray(0, 100);
  const view = new DataView(shm.buffer, shm.byteOffset, shm.byteLength);
  const little = os.endianness() === "LE";
  const frames = view.getUint32(16, little);
  const copied = view.getUint32(96, little);
  return { frames, copied, left: frames - copied };
}

/** The thread has copied all but SQLite's last thousand frames, as SQLite's own checkpoints would. */
const copiedSoon = (file: string) => until(() => uncopied(file).left < 1000);

async function until(what: () => boolean): Promise<boolean> {
  for (let i = 0; i < 150; i++) {
    if (what()) return true;
    await Bun.sleep(40);
  }
  return what();
}

describe("checkpoints on a thread of their own", () => {
  test("a connection left to the thread copies nothing into the file in its own commits", () => {
    const made = walDatabase();
    db = made.db;
    // The thread is given another path here, so only the connection's own commits could checkpoint.
    checkpoints = checkpointAside(path.join(dir, "elsewhere.db"), () => undefined);
    checkpoints.adopt(db);
    commitPages(db);
    expect(uncopied(made.file).copied).toBe(0);
    expect(uncopied(made.file).frames).toBeGreaterThan(ROWS);
  });

  test("the thread copies them soon after: all but the last thousand pages, as SQLite would", async () => {
    const made = walDatabase();
    db = made.db;
    const warned: string[] = [];
    checkpoints = checkpointAside(made.file, (line) => warned.push(line));
    checkpoints.adopt(db);
    commitPages(db);
    expect(await copiedSoon(made.file)).toBe(true);
    expect(warned).toEqual([]);
  });

  test("once a checkpoint has copied all of it, the next commit starts the log over, the file left its size", () => {
    const made = walDatabase();
    db = made.db;
    checkpoints = checkpointAside(path.join(dir, "elsewhere.db"), () => undefined);
    checkpoints.adopt(db);
    commitPages(db);
    // What the thread does, done here from a connection of the test's own.
    const other = new Database(made.file);
    try {
      other.query("PRAGMA wal_checkpoint(PASSIVE)").get();
    } finally {
      other.close();
    }
    const size = fs.statSync(`${made.file}-wal`).size;
    commitPages(db, ROWS, 1);
    // Cutting the file back is the serving thread's work no more (20 ms for 10,000 pages).
    expect(uncopied(made.file).frames).toBeLessThan(10);
    expect(fs.statSync(`${made.file}-wal`).size).toBe(size);
  });

  test("the thread cuts a large -wal file back once the database has been still for a while", async () => {
    const made = walDatabase();
    db = made.db;
    checkpoints = checkpointAside(made.file, () => undefined);
    checkpoints.adopt(db);
    commitPages(db);
    expect(fs.statSync(`${made.file}-wal`).size).toBeGreaterThan(ROWS * 4096);
    expect(await until(() => fs.statSync(`${made.file}-wal`).size === 0)).toBe(true);
    // Nothing was lost on the way: every row is there, read through the serving connection.
    expect(db.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: ROWS });
  });

  test("one file let go of, another is still looked after by the same thread", async () => {
    const made = walDatabase();
    db = made.db;
    const otherFile = path.join(dir, "other.db");
    const other = walTable(otherFile);
    try {
      const warned: string[] = [];
      const first = checkpointAside(otherFile, (line) => warned.push(line));
      first.adopt(other);
      checkpoints = checkpointAside(made.file, (line) => warned.push(line));
      checkpoints.adopt(db);
      first.stop();
      commitPages(db);
      const copied = await copiedSoon(made.file);
      expect(warned).toEqual([]);
      expect(copied).toBe(true);
    } finally {
      other.close();
    }
  });

  test("a file deleted under it is let be; one made again at its path is looked after anew", async () => {
    const made = walDatabase();
    const warned: string[] = [];
    checkpoints = checkpointAside(made.file, (line) => warned.push(line));
    checkpoints.adopt(made.db);
    commitPages(made.db, 0, 10);
    await Bun.sleep(300); // the thread has opened the first file
    // The file deleted while its -wal file fills: nothing to checkpoint there, and nothing to say.
    fs.rmSync(made.file);
    commitPages(made.db, 10, 2000);
    await Bun.sleep(500);
    expect(warned).toEqual([]);
    // What the store does next: a new file at the path, adopted.
    made.db.close();
    for (const suffix of ["-wal", "-shm"]) fs.rmSync(`${made.file}${suffix}`, { force: true });
    db = walTable(made.file);
    checkpoints.adopt(db);
    commitPages(db);
    expect(await copiedSoon(made.file)).toBe(true);
    expect(warned).toEqual([]);
  });

  test("a connection not left to it checkpoints in its own commits, as SQLite does by default", () => {
    const made = walDatabase();
    db = made.db;
    commitPages(db);
    expect(uncopied(made.file).left).toBeLessThan(1000);
  });

  test("a thread that fails says so once, and the connection checkpoints itself again", async () => {
    const made = walDatabase();
    db = made.db;
    const broken = path.join(dir, "broken.db");
    fs.writeFileSync(broken, "this is not a database");
    fs.writeFileSync(`${broken}-wal`, Buffer.alloc(5 * 1024 * 1024));
    // A wal-index saying 5,000 frames wait to be copied, so the thread opens the file to copy them.
    const shm = Buffer.alloc(32 * 1024);
    const little = os.endianness() === "LE";
    if (little) shm.writeUInt32LE(5000, 16);
    else shm.writeUInt32BE(5000, 16);
    fs.writeFileSync(`${broken}-shm`, shm);
    const warned: string[] = [];
    checkpoints = checkpointAside(broken, (line) => warned.push(line));
    checkpoints.adopt(db);
    expect(await until(() => warned.length > 0)).toBe(true);
    await Bun.sleep(500);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain(`checkpoints of ${broken} went back to the serving thread`);
    commitPages(db);
    expect(uncopied(made.file).left).toBeLessThan(1000);
  });

  test("a process whose watching store is closed exits on its own: the thread keeps nothing alive", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-checkpoints-"));
    fs.mkdirSync(path.join(dir, ".lorecards"));
    const store = path.resolve(import.meta.dir, "../../src/state/sqlite.ts");
    const types = path.resolve(import.meta.dir, "../../src/state/types.ts");
    const script = `
      import { openSqliteStore } from ${JSON.stringify(store)};
      import { LIMITS } from ${JSON.stringify(types)};
      const s = openSqliteStore(${JSON.stringify(path.join(dir, ".lorecards", "state.db"))}, {
        limits: LIMITS, warn: (l) => console.error(l), watch: true,
      });
      for (let i = 0; i < 50; i++) await s.commitTurn("c" + i, { turn: 1, now: i });
      await s.close();
      console.log("closed");`;
    // A process that hangs fails the test by its timeout.
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    expect(await child.exited).toBe(0);
    expect(await new Response(child.stdout).text()).toBe("closed\n");
    expect(await new Response(child.stderr).text()).toBe("");
  }, 30_000);
});
