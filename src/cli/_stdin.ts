/**
 * All of a hook's stdin, read with plain blocking reads: in a cold process about 5% less CPU than
 * `Bun.stdin.text()` (bench/README.md, the hook rows). A stdin the parent left non-blocking answers
 * "nothing there yet" (EAGAIN) instead of waiting; the read is tried again a moment later, so the
 * prompt is still read whole, up to its end. Imports node:fs only: the hook client stays light.
 */
import { readSync } from "node:fs";

/** How long to wait before reading again a non-blocking stdin that had nothing yet. */
const RETRY_MS = 2;

export function readAllStdin(fd = 0): string {
  const chunks: Buffer[] = [];
  for (;;) {
    const chunk = Buffer.allocUnsafe(65536);
    let n: number;
    try {
      n = readSync(fd, chunk, 0, chunk.length, null);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN") throw err;
      Bun.sleepSync(RETRY_MS);
      continue;
    }
    if (n === 0) break;
    chunks.push(chunk.subarray(0, n));
  }
  // Decoded once whole, so a character split between two reads stays one character.
  return Buffer.concat(chunks).toString("utf8");
}
