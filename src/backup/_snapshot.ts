/**
 * Reading a vault's backup sources. Card files and the small state files are read as bytes, never
 * through a link; each database is copied by SQLite itself with `VACUUM INTO`, which reads one
 * consistent version of it (the committed pages, whatever sits in its -wal file) while other
 * processes go on writing, and writes a standalone file with no -wal of its own. A raw copy of a live
 * WAL database can catch a checkpoint half done and restore as a corrupt file.
 * https://www.sqlite.org/lang_vacuum.html#vacuuminto
 *
 * Each file is hashed as it is read, since the manifest, which names every hash, goes first in the
 * archive. A backup that lets go of the lock once the files are read (`backup`) holds their bytes
 * until they are written. One that keeps the lock to the end (a restore's backup of what it replaces)
 * holds one file at a time instead: it reads each again as it writes it and checks it against its
 * hash, so a 100,000-card vault is never in memory twice over (the staged restore beside it).
 */
import { Database } from "bun:sqlite";
import fs from "node:fs";
import path from "node:path";
import { describeError, LoreError } from "../errors.ts";
import { gcTick } from "../gc-tick.ts";
import { dropRecallEvents } from "../state/index.ts";
import { randomHex, STATE_DIR } from "../vault/index.ts";
import type { Source } from "./_contents.ts";
import { sha256 } from "./_manifest.ts";

/** Where the platform has it (not Windows), opening a link fails with ELOOP instead of following it. */
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/**
 * One file read for a backup: its manifest entry (the public fields, in the manifest's order, all that
 * `JSON.stringify` writes of it) and how to have its bytes when it is written.
 */
export class SnapshotFile {
  /** The bytes, held; or the file to read them from again (the card itself, or a database's copy). */
  readonly #contents: Uint8Array | string;
  /** Only ever appended to (hits.jsonl): read again, its first `size` bytes are what was hashed. */
  readonly #appended: boolean;

  constructor(
    readonly path: string,
    readonly size: number,
    readonly sha256: string,
    readonly mode: number,
    readonly mtime: number,
    contents: Uint8Array | string,
    appended: boolean,
  ) {
    this.#contents = contents;
    this.#appended = appended;
  }

  /** The contents: held since they were read, or read again and refused unless they hash the same. */
  bytes(): Uint8Array {
    if (typeof this.#contents !== "string") return this.#contents;
    let bytes: Uint8Array;
    try {
      bytes = readPlain(this.#contents);
    } catch (err) {
      throw changed(this.path, err);
    }
    if (this.#appended) bytes = bytes.subarray(0, this.size);
    if (bytes.length !== this.size || sha256(bytes) !== this.sha256) throw changed(this.path);
    return bytes;
  }
}

/** Whether `readSources` keeps each file's bytes, or reads each again when it is written. */
export type Holding = "hold" | "read-again";

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

/** Copies a database into `scratch`; the copy's path. */
function copyDatabase(abs: string, scratch: string, withoutRecalls: boolean): string {
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
  return out;
}

/** What `readOnce` found, and where to read it again (`appended`: only its first bytes). */
interface Read {
  bytes: Uint8Array;
  from: string;
  appended: boolean;
}

function readOnce(s: Source, scratch: string, withRecalls: boolean): Read {
  if (s.sqlite) {
    // The copy stays in scratch until the backup is written: it is what is read again.
    const copy = copyDatabase(s.abs, scratch, !withRecalls && s.path === STATE_DB);
    return { bytes: readPlain(copy), from: copy, appended: false };
  }
  const bytes = readPlain(s.abs);
  // hits.jsonl is only appended to: read again, its first bytes are the lines read the first time.
  if (s.path.endsWith("hits.jsonl")) return { bytes: wholeLines(bytes), from: s.abs, appended: true };
  return { bytes, from: s.abs, appended: false };
}

function changed(path: string, cause?: unknown): LoreError {
  return new LoreError(
    "conflict",
    `${path} changed while the backup was being written (something edited it without the vault lock); ` +
      "nothing was written: try again",
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Read and hash every source; `scratch` is a private folder for the databases' copies, kept until the
 * files are written. State's recall events (index recalls and their adoptions) are left out of its
 * copy unless `withRecalls`.
 */
export function readSources(
  sources: readonly Source[],
  scratch: string,
  opts: { withRecalls?: boolean; holding: Holding },
): SnapshotFile[] {
  const out: SnapshotFile[] = [];
  const tick = gcTick();
  for (const s of sources) {
    try {
      const st = fs.lstatSync(s.abs);
      if (!st.isFile()) continue; // replaced by a link or a folder since it was listed: not ours to read
      const { bytes, from, appended } = readOnce(s, scratch, opts.withRecalls === true);
      const contents = opts.holding === "hold" ? bytes : from;
      const mode = st.mode & 0o777;
      const mtime = Math.trunc(st.mtimeMs);
      out.push(new SnapshotFile(s.path, bytes.length, sha256(bytes), mode, mtime, contents, appended));
      tick();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ELOOP") continue;
      const what = s.sqlite ? "copy the database" : "read";
      throw new LoreError("io_error", `cannot ${what} ${s.path}: ${describeError(err)}`, { cause: err });
    }
  }
  return out;
}
