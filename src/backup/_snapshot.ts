/**
 * Reading a vault's backup sources into memory. Card files and the small state files are read as
 * bytes, never through a link; each database is copied by SQLite itself with `VACUUM INTO`, which
 * reads one consistent version of it (the committed pages, whatever sits in its -wal file) while
 * other processes go on writing, and writes a standalone file with no -wal of its own. A raw copy of
 * a live WAL database can catch a checkpoint half done and restore as a corrupt file.
 * https://www.sqlite.org/lang_vacuum.html#vacuuminto
 */
import { Database } from "bun:sqlite";
import fs from "node:fs";
import path from "node:path";
import { describeError, LoreError } from "../errors.ts";
import { dropRecallEvents } from "../state/index.ts";
import { randomHex, STATE_DIR } from "../vault/index.ts";
import type { Source } from "./_contents.ts";

/** Where the platform has it (not Windows), opening a link fails with ELOOP instead of following it. */
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

export interface SnapshotFile {
  path: string;
  bytes: Uint8Array;
  mode: number;
  mtime: number;
}

function readPlain(abs: string): Uint8Array {
  const fd = fs.openSync(abs, fs.constants.O_RDONLY | NOFOLLOW);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * hits.jsonl is appended to without the lock (one whole line per write): a line being appended right
 * now is left for the next backup rather than copied half.
 */
function wholeLines(bytes: Uint8Array): Uint8Array {
  const end = bytes.lastIndexOf(10);
  return end === bytes.length - 1 ? bytes : bytes.subarray(0, end + 1);
}

/** The state file, whose recall events a backup keeps only when asked to. */
const STATE_DB = `${STATE_DIR}/state.db`;

function copyDatabase(abs: string, scratch: string, withoutRecalls: boolean): Uint8Array {
  const out = path.join(scratch, `${path.basename(abs)}.${randomHex(4)}`);
  const db = new Database(abs, { readonly: true });
  try {
    db.run("PRAGMA busy_timeout = 5000");
    db.run("VACUUM INTO ?", [out]);
  } finally {
    db.close();
  }
  if (withoutRecalls) {
    const copy = new Database(out);
    try {
      dropRecallEvents(copy);
    } finally {
      copy.close();
    }
  }
  try {
    return fs.readFileSync(out);
  } finally {
    fs.rmSync(out, { force: true });
  }
}

/**
 * Read every source; `scratch` is a private folder for the databases' copies. State's recall events
 * (index recalls and their adoptions) are left out of its copy unless `withRecalls`.
 */
export function readSources(
  sources: readonly Source[],
  scratch: string,
  withRecalls = false,
): SnapshotFile[] {
  const out: SnapshotFile[] = [];
  for (const s of sources) {
    try {
      const st = fs.lstatSync(s.abs);
      if (!st.isFile()) continue; // replaced by a link or a folder since it was listed: not ours to read
      let bytes = s.sqlite
        ? copyDatabase(s.abs, scratch, !withRecalls && s.path === STATE_DB)
        : readPlain(s.abs);
      if (s.path.endsWith("hits.jsonl")) bytes = wholeLines(bytes);
      out.push({ path: s.path, bytes, mode: st.mode & 0o777, mtime: Math.trunc(st.mtimeMs) });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ELOOP") continue;
      const what = s.sqlite ? "copy the database" : "read";
      throw new LoreError("io_error", `cannot ${what} ${s.path}: ${describeError(err)}`, { cause: err });
    }
  }
  return out;
}
