/**
 * The vault lock (TOOLCHAIN "Locks"): exclusive create of `<vault>/.lorecards/lock` holding
 * `{pid, at, token}`. A lock is stale when its process is gone or it is older than ~10 s; the holder
 * refreshes `at` while it works, so only a holder that hangs or dies goes stale. Breaking a
 * stale lock happens under a second short-lived file (`lock.break`) and re-checks the content, so two
 * waiters can never both break it and delete a fresh lock taken in between. A lock this process holds
 * is never stale to itself: the process asking is alive, only too busy to beat (a long synchronous step
 * of an import on a loaded machine), and a read in it that settles leftovers would otherwise break its
 * own writer's lock and delete the import folder that writer is filling.
 */

import fs from "node:fs";
import path from "node:path";
import { describeError, LoreError } from "../errors.ts";
import { stateIn } from "./_links.ts";

export interface LockOptions {
  /** Give up after this long (LoreError "locked"). Default 5000 ms. */
  timeoutMs?: number;
  /** A lock older than this is stale whatever its pid. Default 10000 ms. */
  staleMs?: number;
}

const DEFAULTS = { timeoutMs: 5000, staleMs: 10_000 };
const BREAKER_STALE_MS = 2000;

/** The tokens of the locks this process holds now. */
const held = new Set<string>();

export function lockPath(root: string): string {
  return stateIn(root, "lock");
}

/** Whether a process with this pid runs on this machine (EPERM: it does, as another user). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readLock(file: string): { text: string; ageMs: number } | null {
  try {
    const text = fs.readFileSync(file, "utf8");
    return { text, ageMs: Date.now() - fs.statSync(file).mtimeMs };
  } catch {
    return null;
  }
}

function isStale(lock: { text: string; ageMs: number }, staleMs: number): boolean {
  let info: { pid?: number; at?: number; token?: string } | null = null;
  try {
    info = JSON.parse(lock.text);
  } catch {}
  if (typeof info?.token === "string" && held.has(info.token)) return false;
  // An empty or half-written lock is being created right now, unless it has been so for a while.
  if (!info || typeof info.pid !== "number") return lock.ageMs > BREAKER_STALE_MS;
  if (!pidAlive(info.pid)) return true;
  return Date.now() - (typeof info.at === "number" ? info.at : 0) > staleMs;
}

function breakIfStale(file: string, staleMs: number): boolean {
  const seen = readLock(file);
  if (seen === null) return true;
  if (!isStale(seen, staleMs)) return false;
  const breaker = `${file}.break`;
  try {
    fs.closeSync(fs.openSync(breaker, "wx"));
  } catch {
    const b = readLock(breaker);
    if (b && b.ageMs > BREAKER_STALE_MS) fs.rmSync(breaker, { force: true });
    return false;
  }
  try {
    if (readLock(file)?.text === seen.text) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(breaker, { force: true });
  }
  return true;
}

function tryCreate(file: string, token: string): boolean {
  try {
    const fd = fs.openSync(file, "wx");
    fs.writeSync(fd, JSON.stringify({ pid: process.pid, at: Date.now(), token }));
    fs.closeSync(fd);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code === "ENOENT") {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      return tryCreate(file, token);
    }
    throw new LoreError("io_error", `cannot take the vault lock: ${describeError(err)}`, { cause: err });
  }
}

/** Take the lock; resolves to a release function. */
export async function acquireLock(root: string, opts: LockOptions = {}): Promise<() => void> {
  const { timeoutMs, staleMs } = { ...DEFAULTS, ...opts };
  const file = lockPath(root);
  const token = crypto.randomUUID();
  const deadline = Date.now() + timeoutMs;
  let delay = 1;
  while (!tryCreate(file, token)) {
    if (breakIfStale(file, staleMs)) continue;
    if (Date.now() > deadline) {
      throw new LoreError("locked", `the vault is locked by another process (${file}); try again`);
    }
    await Bun.sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 20);
  }
  // A long holder (a 10k-card import) keeps its lock fresh, so waiters never take it for stale.
  const heartbeat = setInterval(() => refresh(file, token), Math.max(50, staleMs / 3));
  heartbeat.unref();
  held.add(token);
  return () => {
    clearInterval(heartbeat);
    held.delete(token);
    if (readLock(file)?.text.includes(token)) fs.rmSync(file, { force: true });
  };
}

/**
 * Take the lock only if it is free now (a stale one is broken first); never waits. Resolves to a
 * release function, or null when someone holds the lock or it cannot be taken (a read-only vault).
 * For short repairs only: it keeps no heartbeat.
 */
export function tryLock(root: string, opts: LockOptions = {}): (() => void) | null {
  const { staleMs } = { ...DEFAULTS, ...opts };
  const file = lockPath(root);
  const token = crypto.randomUUID();
  try {
    if (!tryCreate(file, token) && !(breakIfStale(file, staleMs) && tryCreate(file, token))) return null;
  } catch {
    return null;
  }
  held.add(token);
  return () => {
    held.delete(token);
    if (readLock(file)?.text.includes(token)) fs.rmSync(file, { force: true });
  };
}

/** Rewrite our lock's time, if the lock is still ours. */
function refresh(file: string, token: string): void {
  try {
    if (!readLock(file)?.text.includes(token)) return;
    const tmp = `${file}.${token}`;
    fs.writeFileSync(tmp, JSON.stringify({ pid: process.pid, at: Date.now(), token }));
    fs.renameSync(tmp, file);
  } catch {
    // best effort: the lock is still held, only its age grows
  }
}

/** Run `fn` holding the vault lock. Not re-entrant: do not call a locking vault write inside `fn`. */
export async function withLock<T>(
  vault: { root: string },
  fn: () => T | Promise<T>,
  opts: LockOptions = {},
): Promise<T> {
  const release = await acquireLock(vault.root, opts);
  try {
    return await fn();
  } finally {
    release();
  }
}
