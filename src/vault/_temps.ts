/**
 * Temp files the atomic write leaves behind when its process is killed between creating the temp and
 * renaming it (`kill -9`, a power cut): `.<name>.<pid>.<hex>.tmp` (and the marker secret's
 * `marker-secret.<pid>.<hex>.tmp`, a backup's archive `.<pid>.<hex>.tmp` and the folder of its
 * databases' copies `.scratch-<pid>-<hex>`). The next write into a folder, and `check`, remove the stale ones. A
 * temp is stale when its writer's pid is not alive here, or when it is older than any write takes; a
 * live writer's temp exists for milliseconds and is never touched. The short grace period covers a
 * writer on another machine that shares the folder (a synced vault), whose pid means nothing here.
 */
import fs from "node:fs";
import path from "node:path";
import { linkBelow } from "./_links.ts";
import { pidAlive } from "./lock.ts";
import { kindDir, STATE_DIR, type Vault } from "./paths.ts";

export interface StaleOptions {
  /** A temp younger than this is never removed. Default 10 s. */
  graceMs: number;
  /** A temp older than this is removed whatever its pid (the pid may have been reused). Default 10 min. */
  maxAgeMs: number;
  now: () => number;
}

const DEFAULTS: StaleOptions = { graceMs: 10_000, maxAgeMs: 10 * 60_000, now: Date.now };

/** `.Alice.md.4242.0a1b2c3d.tmp` (and a backup's `.4242.0a1b2c3d.tmp`) → 4242. */
const TEMP = /^.*\.(\d+)\.[0-9a-f]{8}\.tmp$/;
/** A backup's private folder for its databases' copies (backup/write.ts): `.scratch-4242-0a1b2c3d`. */
const SCRATCH = /^\.scratch-(\d+)-[0-9a-f]{8}$/;

/** Removes the stale temp files directly in `dir`; returns how many. Never throws. */
export function removeStaleTemps(dir: string, options: Partial<StaleOptions> = {}): number {
  const o = { ...DEFAULTS, ...options };
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const temp = TEMP.exec(name);
    const scratch = temp === null ? SCRATCH.exec(name) : null;
    const m = temp ?? scratch;
    if (m === null) continue;
    const file = path.join(dir, name);
    try {
      const st = fs.lstatSync(file);
      const age = o.now() - st.mtimeMs;
      if (!(temp ? st.isFile() : st.isDirectory()) || age < o.graceMs) continue;
      if (age < o.maxAgeMs && pidAlive(Number(m[1]))) continue;
      fs.rmSync(file, { recursive: true, force: true });
      removed++;
    } catch {
      // gone meanwhile, or not ours to remove: leave it
    }
  }
  return removed;
}

/**
 * The sweep `check` runs: every kind folder (the vault root included), `.lorecards/` and its
 * `backups/` (what a killed backup leaves there: its archive's temp file, its databases' copies).
 */
export function sweepVaultTemps(vault: Vault, options: Partial<StaleOptions> = {}): number {
  const dirs = new Set([
    ...vault.kinds.kinds.map((k) => kindDir(vault, k)),
    path.join(vault.root, STATE_DIR),
    path.join(vault.root, STATE_DIR, "backups"),
  ]);
  let removed = 0;
  for (const dir of dirs) {
    // Never through a link: what it points to is not the vault's to clean.
    if (dir === vault.root || linkBelow(vault, dir) === null) removed += removeStaleTemps(dir, options);
  }
  return removed;
}
