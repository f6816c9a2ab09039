/**
 * The marker secret as a file (`marker-secret` beside state.db), created on first use with mode 0600.
 * Creation is race-free across processes: the secret is written to a private temp file and hard-linked
 * into place, so a second process either links first or reads a complete file.
 */

import { chmodSync, linkSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { LoreError } from "../errors.ts";
import { readPlain } from "../plain-file.ts";
import { randomHex } from "../vault/index.ts";

/** `ensureDir` makes the folder the file goes in (never the vault above it). */
export function readOrCreateSecret(file: string, ensureDir: () => void): string {
  const existing = readSecret(file);
  if (existing !== null) return existing;
  try {
    ensureDir();
    const tmp = `${file}.${process.pid}.${randomHex(4)}.tmp`;
    writeFileSync(tmp, `${randomHex(24)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    try {
      linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    } finally {
      unlinkSync(tmp);
    }
  } catch (err) {
    throw new LoreError("io_error", `cannot create the marker secret in ${path.dirname(file)}`, {
      cause: err,
    });
  }
  const created = readSecret(file);
  if (created === null) throw new LoreError("io_error", `the marker secret ${file} is empty`);
  return created;
}

function readSecret(file: string): string | null {
  try {
    // Hard-linked into place (above): for a moment, and after a kill, it has a second name.
    const text = readPlain(file, { allowLinks: true }).trim();
    return text === "" ? null : text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    if (err instanceof LoreError) throw err;
    throw new LoreError("io_error", `cannot read the marker secret ${file}`, { cause: err });
  }
}
