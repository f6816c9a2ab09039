/**
 * The hit log as a file (`hits.jsonl`, documented to users): one JSON line per entry. Lines are appended
 * with a single write each batch (O_APPEND), so concurrent writers interleave whole lines. Reading takes
 * only the tail of the file and skips lines that do not parse (a torn last line, a hand edit).
 */

import { appendFileSync, closeSync, fstatSync, readSync } from "node:fs";
import { LoreError } from "../errors.ts";
import { openPlain } from "../plain-file.ts";
import { type HitEntry, normalizeHit } from "./hits.ts";

const TAIL_CHUNK = 64 * 1024;

/** `ensureDir` makes the folder the file goes in (never the vault above it). */
export function appendHitLines(file: string, entries: readonly HitEntry[], ensureDir: () => void): void {
  if (entries.length === 0) return;
  const lines = entries.map((e) => `${JSON.stringify(normalizeHit(e))}\n`).join("");
  ensureDir();
  try {
    appendFileSync(file, lines, { mode: 0o600 });
  } catch (err) {
    throw new LoreError("io_error", `cannot append to ${file}`, { cause: err });
  }
}

/** The newest `limit` entries, newest first. A missing file is an empty log. */
export function readHitLines(file: string, limit: number): HitEntry[] {
  if (limit <= 0) return [];
  let fd: number;
  try {
    fd = openPlain(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    if (err instanceof LoreError) throw err;
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
      if (typeof v.time === "string" && Array.isArray(v.keys)) out.push(normalizeHit(v as HitEntry));
    } catch {
      // A torn or hand-edited line is skipped, never fatal.
    }
  }
  return out;
}
