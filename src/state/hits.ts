/**
 * The hit log `<vault>/.lorecards/hits.jsonl`: one JSON line per surfacing. Lines are appended with a
 * single write each batch (O_APPEND), so concurrent writers interleave whole lines. Reading takes only
 * the tail of the file and skips lines that do not parse (a torn last line, a hand edit).
 */

import { appendFileSync, closeSync, fstatSync, openSync, readSync } from "node:fs";
import path from "node:path";
import { LoreError } from "../errors.ts";
import { ensureStateDir } from "./_dir.ts";

export type HitSource = "gateway" | "hook" | "try" | "ui";

export interface HitEntry {
  /** ISO 8601. */
  time: string;
  source: HitSource;
  keys: string[];
  words: string[];
  /** The first 200 characters of the triggering message. */
  message: string;
}

const MESSAGE_CHARS = 200;
const TAIL_CHUNK = 64 * 1024;

export function hitsPath(vaultRoot: string): string {
  return path.join(vaultRoot, ".lorecards", "hits.jsonl");
}

export function appendHits(vaultRoot: string, entries: readonly HitEntry[]): void {
  if (entries.length === 0) return;
  const lines = entries.map((e) => `${JSON.stringify(normalize(e))}\n`).join("");
  const file = hitsPath(vaultRoot);
  ensureStateDir(vaultRoot);
  try {
    appendFileSync(file, lines, { mode: 0o600 });
  } catch (err) {
    throw new LoreError("io_error", `cannot append to ${file}`, { cause: err });
  }
}

/** The newest `limit` entries, newest first. A missing file is an empty log. */
export function readRecentHits(vaultRoot: string, limit: number): HitEntry[] {
  if (limit <= 0) return [];
  const file = hitsPath(vaultRoot);
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new LoreError("io_error", `cannot read ${file}`, { cause: err });
  }
  try {
    return readTail(fd, limit);
  } finally {
    closeSync(fd);
  }
}

function readTail(fd: number, limit: number): HitEntry[] {
  const size = fstatSync(fd).size;
  let start = size;
  let buf = Buffer.alloc(0);
  let found: HitEntry[] = [];
  while (start > 0) {
    const len = Math.min(TAIL_CHUNK, start);
    start -= len;
    const chunk = Buffer.alloc(len);
    readSync(fd, chunk, 0, len, start);
    buf = Buffer.concat([chunk, buf]);
    // Until the start of the file, the first line of the buffer may be cut: leave it for the next round.
    const text = buf.toString("utf8");
    const lines = text.split("\n");
    const complete = start === 0 ? lines : lines.slice(1);
    found = parseLines(complete);
    if (found.length >= limit) break;
  }
  return found.slice(-limit).reverse();
}

function parseLines(lines: string[]): HitEntry[] {
  const out: HitEntry[] = [];
  for (const line of lines) {
    if (line.trim() === "") continue;
    try {
      const v = JSON.parse(line) as Partial<HitEntry>;
      if (typeof v.time === "string" && Array.isArray(v.keys)) out.push(normalize(v as HitEntry));
    } catch {
      // A torn or hand-edited line is skipped, never fatal.
    }
  }
  return out;
}

function normalize(e: HitEntry): HitEntry {
  return {
    time: e.time,
    source: e.source,
    keys: [...e.keys],
    words: Array.isArray(e.words) ? [...e.words] : [],
    message: Array.from(typeof e.message === "string" ? e.message : "")
      .slice(0, MESSAGE_CHARS)
      .join(""),
  };
}
