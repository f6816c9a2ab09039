/**
 * The inbox beside style.db (`style-inbox.jsonl`): what a hook read in a prompt, appended as one line
 * (one write with O_APPEND, no SQLite, no fsync) for the next reader of style memory to learn. A line
 * holds only what the store itself keeps of a message: its sightings (signals, never text), the
 * hashed conversation, the one scrubbed excerpt (sanitize.ts), and the moment and rules it was read
 * under, so learning it later ends where learning it at once would have.
 *
 * Every use of the store folds the inbox in first (_db.ts): in one immediate transaction it learns each
 * complete line past the offset style.db keeps for that file, and moves the offset on, so a crash
 * anywhere leaves either both or neither, and two processes folding at once take turns on the write
 * lock, the second finding nothing left. Files are known by inode and birth time: the inbox is renamed
 * aside once it is large (a hook that opened it just before appends there, and that file is still
 * folded), and the renamed file is removed once folded and untouched for GRACE_MS.
 *
 * A line starts and ends with a newline: a line cut short by a crash is one line that does not parse
 * (dropped with a warning), never the start of the next one's.
 */
import fs from "node:fs";
import path from "node:path";
import { stateIn } from "../vault/index.ts";
import type { Queries } from "./_db.ts";
import { type Found, type Observed, showing } from "./_learn.ts";
import { STYLE_INBOX, STYLE_INBOX_ASIDE } from "./files.ts";
import type { Rules } from "./rules.ts";

/** An inbox this large is renamed aside when folded, to be removed later. */
const ROTATE_AT = 256 * 1024;
/** The longest a hook may take between opening the inbox and writing to it, with room to spare. */
const GRACE_MS = 10 * 60_000;
const META_KEY = "inbox";

/** One line of the inbox. */
interface Entry {
  at: number;
  rules: Rules;
  conv: string;
  excerpt?: string;
  sightings: Found[];
}

export function inboxPath(vaultRoot: string): string {
  return stateIn(vaultRoot, STYLE_INBOX);
}

function asidePath(file: string): string {
  return path.join(path.dirname(file), STYLE_INBOX_ASIDE);
}

/**
 * Appends what was read in one message, learned at `at` under `rules`; returns the inbox's size before
 * and after it (the caller folds a large one). The state folder is never made here: the hook appends
 * only beside a store that said it holds no hint (_hinted.ts), which is in that folder.
 */
export function appendObserved(
  file: string,
  o: Observed,
  at: number,
  rules: Rules,
): { before: number; after: number } {
  // Kept only when it can become a habit's example: when it shows one of the message's signals found
  // in its text (a measured trait has no example; a message showing only those needs no excerpt).
  const found = o.sightings.filter((s) => s.start >= 0);
  const shows = found.length > 0 ? showing(o.excerpt()) : undefined;
  const excerpt = shows && found.some((s) => shows(s.signal) !== undefined) ? o.excerpt() : undefined;
  const entry: Entry = {
    at,
    rules,
    conv: o.conv,
    ...(excerpt === undefined ? {} : { excerpt }),
    sightings: o.sightings.map((s) => ({ ...s, start: s.start >= 0 ? 0 : -1 })),
  };
  const line = `\n${JSON.stringify(entry)}\n`;
  const fd = fs.openSync(file, "a", 0o600);
  try {
    const written = fs.writeSync(fd, line);
    const after = fs.fstatSync(fd).size;
    return { before: after - written, after };
  } finally {
    fs.closeSync(fd);
  }
}

type Learn = (q: Queries, batch: readonly Observed[], now: number, rules: Rules) => void;

export class Inbox {
  /** What this process last folded or saw of each file (by key): skipped while it has not grown. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly file: string,
    private readonly learn: Learn,
    private readonly warn: (line: string) => void,
  ) {}

  /** True when a file of the inbox may hold lines not yet folded (a stat of each; no read). */
  waiting(): boolean {
    for (const f of [asidePath(this.file), this.file]) {
      const st = fs.statSync(f, { bigint: true, throwIfNoEntry: false });
      if (st && st.size > BigInt(this.seen.get(keyOf(st)) ?? 0)) return true;
    }
    return false;
  }

  /**
   * Learns every complete line not yet folded, in the caller's immediate transaction; returns what
   * records the files as seen, for the caller to run once that transaction has committed.
   */
  fold(q: Queries): () => void {
    const offsets = readOffsets(q);
    const seen = new Map<string, number>();
    const next: Record<string, number> = {};
    const aside = asidePath(this.file);
    let asideLeft = false;
    for (const f of [aside, this.file]) {
      const read = this.foldFile(q, f, offsets);
      if (read === undefined) continue;
      seen.set(read.key, read.size);
      const idle = Date.now() - read.mtimeMs > GRACE_MS;
      if (
        f === aside &&
        read.from === read.size &&
        read.to === read.size &&
        idle &&
        tidied(() => fs.rmSync(f))
      )
        continue;
      next[read.key] = read.to;
      if (f === aside) asideLeft = true;
      else if (read.to >= ROTATE_AT && !asideLeft) tidied(() => fs.renameSync(f, aside));
    }
    q.putMeta.run(META_KEY, JSON.stringify(next));
    return () => {
      for (const [key, size] of seen) this.seen.set(key, size);
    };
  }

  private foldFile(
    q: Queries,
    file: string,
    offsets: Record<string, number>,
  ): { key: string; from: number; to: number; size: number; mtimeMs: number } | undefined {
    let fd: number;
    try {
      fd = fs.openSync(file, "r");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
    try {
      const st = fs.fstatSync(fd, { bigint: true });
      const key = keyOf(st);
      const size = Number(st.size);
      const known = offsets[key] ?? 0;
      // A smaller file than the offset is not the one the offset was kept for.
      const from = known <= size ? known : 0;
      const bytes = Buffer.alloc(size - from);
      const got = size > from ? fs.readSync(fd, bytes, 0, bytes.length, from) : 0;
      const end = bytes.lastIndexOf(10, got - 1);
      const to = end < 0 ? from : from + end + 1;
      if (to > from) this.learnLines(q, bytes.toString("utf8", 0, to - from), file);
      return { key, from, to, size, mtimeMs: Number(st.mtimeMs) };
    } finally {
      fs.closeSync(fd);
    }
  }

  private learnLines(q: Queries, text: string, file: string): void {
    let dropped = 0;
    for (const line of text.split("\n")) {
      if (line === "") continue;
      const entry = parseEntry(line);
      if (entry === undefined) dropped++;
      else {
        const observed: Observed = {
          conv: entry.conv,
          sightings: entry.sightings,
          excerpt: () => entry.excerpt,
        };
        this.learn(q, [observed], entry.at, entry.rules);
      }
    }
    if (dropped > 0)
      this.warn(`lorecards: ${dropped} unreadable line(s) of ${file} dropped (cut short by a crash?)`);
  }
}

/**
 * Setting aside and removing only tidy: one that fails (a file held open where that forbids it, as
 * on Windows) is tried again at a later fold, and the learning goes on.
 */
function tidied(step: () => void): boolean {
  try {
    step();
    return true;
  } catch {
    return false;
  }
}

function keyOf(st: fs.BigIntStats): string {
  return `${st.ino}:${st.birthtimeNs}`;
}

function readOffsets(q: Queries): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(q.meta.get(META_KEY)?.value ?? "{}");
    return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, number>) : {};
  } catch {
    return {};
  }
}

function parseEntry(line: string): Entry | undefined {
  try {
    const e = JSON.parse(line) as Entry;
    const ok =
      typeof e === "object" &&
      e !== null &&
      typeof e.at === "number" &&
      typeof e.conv === "string" &&
      typeof e.rules === "object" &&
      e.rules !== null &&
      Array.isArray(e.sightings) &&
      (e.excerpt === undefined || typeof e.excerpt === "string");
    return ok ? e : undefined;
  } catch {
    return undefined;
  }
}
