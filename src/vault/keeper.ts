/**
 * The keeper: how a cold process (the hook, `try`) sees an edit written into a card file in place
 * (VS Code and Obsidian save that way), which leaves the folder's mtime alone, at a cost that does
 * not grow with the vault. A vault of up to STAT_ALL_MAX card files needs none: a cold load compares
 * every file (catalog.ts). In a larger one, a keeper process (`lorecards refresh --watch`, started by
 * the first cold process that needs one) watches the vault and writes what changed into the index;
 * a cold process asks it to catch up before it loads:
 *   1. it creates `.lorecards/sync/<nonce>`;
 *   2. the keeper's watcher sees that file after every change made before it (one watcher, events in
 *      order), compares the files it was told about, commits them to index.db, and removes the file;
 *   3. the cold process, seeing the file gone, loads the index as usual (folder mtimes only).
 * Its answer also stands for the periodic full check (catalog.ts): its watcher names every change
 * since its own full check, and it records the marks of the folders it compared, so a save in a
 * folder of 40,000 cards costs the asker no listing of it.
 * `.lorecards/keeper.json` names the keeper (`pid`) once its watcher is up and its first full check is
 * done; a keeper that is gone, or does not answer within SYNC_WAIT_MS, is treated as missing: the load
 * compares every file itself and a new keeper is started. A keeper leaves after IDLE_MS with no
 * request, a keeper that finds another one alive leaves at once, and a keeper leaves within CHECK_MS
 * once the folder it watches is no longer the vault's (removed, moved away, replaced by another folder
 * or a copy) or its file no longer names it (`.lorecards` removed, another keeper took over): a watcher
 * follows the folder it was given, not the path, so such a keeper could only stall every asker.
 * Once up, the keeper also answers the hook itself over the vault's socket, as a running gateway does
 * (cli/refresh.ts): each hook it answers first catches up the same way, through its own sync file.
 */
import fs, { type FSWatcher } from "node:fs";
import path from "node:path";
import { randomHex } from "./_fs.ts";
import { stateIn } from "./_links.ts";
import { STATE_DIR, type Vault } from "./paths.ts";
import { folderId } from "./root.ts";

/** Up to this many card files a cold load stats every file; above, it asks the keeper. */
export const STAT_ALL_MAX = 2000;
/** How long a cold process waits for the keeper's answer before it checks every file itself. */
export const SYNC_WAIT_MS = 1000;
/** A keeper with no request for this long leaves. */
export const IDLE_MS = 30 * 60_000;
/** How often a keeper checks that its vault is still the folder it watches (two stats and a read). */
export const CHECK_MS = 2000;

const KEEPER_FILE = "keeper.json";
const SYNC_DIR = "sync";

function stateFile(vault: Vault, ...parts: string[]): string {
  return stateIn(vault.root, ...parts);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The running keeper's pid, or undefined when there is none (its file gone, unreadable or stale). */
export function keeperPid(vault: Vault): number | undefined {
  const pid = namedPid(vault);
  return pid !== undefined && pid !== process.pid && alive(pid) ? pid : undefined;
}

/** The pid the keeper file names, alive or not; undefined when it is gone or unreadable. */
function namedPid(vault: Vault): number | undefined {
  try {
    const { pid } = JSON.parse(fs.readFileSync(stateFile(vault, KEEPER_FILE), "utf8")) as { pid?: unknown };
    return typeof pid === "number" ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Ask the running keeper to catch up (see the module comment); true once it has, false when there is
 * no keeper or it did not answer in time (the caller then compares every file itself).
 */
export function syncWithKeeper(vault: Vault, waitMs = SYNC_WAIT_MS): boolean {
  if (keeperPid(vault) === undefined) return false;
  const request = stateFile(vault, SYNC_DIR, `${process.pid}-${randomHex(4)}`);
  try {
    fs.writeFileSync(request, "");
  } catch {
    return false;
  }
  const deadline = performance.now() + waitMs;
  while (fs.existsSync(request)) {
    if (performance.now() > deadline) {
      fs.rmSync(request, { force: true });
      return false;
    }
    Bun.sleepSync(1);
  }
  return true;
}

export interface KeeperOptions {
  /** Compare the named vault-relative files with the index and commit them (catalog's touched load). */
  compare(paths: string[] | "all"): void;
  idleMs?: number;
  /** Said once the keeper is up (tests wait for it), with what work done in its own process waits on. */
  onReady?: (keeper: RunningKeeper) => void;
}

/** A keeper that is up, as work done in its own process (a hook it answers) uses it. */
export interface RunningKeeper {
  /**
   * Resolves once every change made before the call is in the index, as a cold asker's sync file is
   * answered (and counts as a request, which keeps the keeper); false when the watcher did not see it
   * within SYNC_WAIT_MS.
   */
  caughtUp(): Promise<boolean>;
}

/**
 * Run the keeper until it has been idle for `idleMs` or another keeper is found alive; resolves when
 * it has left. Its watcher is up before its first full check, so nothing changed meanwhile is missed.
 */
export function runKeeper(vault: Vault, options: KeeperOptions): Promise<void> {
  const syncDir = stateFile(vault, SYNC_DIR);
  fs.mkdirSync(syncDir, { recursive: true });
  const touched = new Set<string>();
  const requests = new Set<string>();
  /** This process's own sync files, and who waits on each. */
  const waiting = new Map<string, (seen: boolean) => void>();
  let flushing: ReturnType<typeof setTimeout> | undefined;
  /** A change the watcher could not name was seen since the last flush. */
  let lost = false;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let checking: ReturnType<typeof setInterval> | undefined;
  let watcher: FSWatcher | undefined;
  const root = folderId(vault.root);
  let left = false;
  return new Promise<void>((resolve, reject) => {
    const leave = () => {
      if (left) return;
      left = true;
      // Gone, a signal ends the process as it would any other: nothing of the keeper's is left to undo.
      process.off("SIGTERM", leave);
      process.off("SIGINT", leave);
      watcher?.close();
      if (flushing) clearTimeout(flushing);
      if (idle) clearTimeout(idle);
      if (checking) clearInterval(checking);
      // Only a file naming this keeper is removed: a folder put in the vault's place may hold a copy.
      if (namedPid(vault) === process.pid && folderId(vault.root) === root)
        fs.rmSync(stateFile(vault, KEEPER_FILE), { force: true });
      resolve();
    };
    /** The vault is still the folder watched, and (once it is written) its file still names this keeper. */
    const stillKeeping = (written: boolean) =>
      root !== undefined && folderId(vault.root) === root && (!written || namedPid(vault) === process.pid);
    const rest = () => {
      if (idle) clearTimeout(idle);
      idle = setTimeout(leave, options.idleMs ?? IDLE_MS);
    };
    const flush = () => {
      flushing = undefined;
      // A folder removed or moved away is seen by the watcher as a change it cannot name: no compare.
      if (!stillKeeping(checking !== undefined)) return leave();
      const paths = [...touched];
      touched.clear();
      try {
        if (lost) options.compare("all");
        else if (paths.length > 0) options.compare(paths);
      } catch (err) {
        // The vault went away while it was being compared; any other failure is a fault to report.
        if (!stillKeeping(checking !== undefined)) return leave();
        throw err;
      }
      lost = false;
      for (const r of requests) {
        fs.rmSync(path.join(syncDir, r), { force: true });
        waiting.get(r)?.(true);
      }
      if (requests.size > 0) rest();
      requests.clear();
    };
    watcher = fs.watch(vault.root, { recursive: true }, (_event, name) => {
      // A change the watcher could not name (its queue overflowed): the next flush compares everything.
      if (typeof name !== "string") {
        lost = true;
        flushing ??= setTimeout(flush, 5);
        return;
      }
      const rel = name.split(path.sep).join("/");
      if (rel.startsWith(`${STATE_DIR}/${SYNC_DIR}/`)) {
        requests.add(rel.slice(STATE_DIR.length + SYNC_DIR.length + 2));
        if (flushing) clearTimeout(flushing);
        flush();
        return;
      }
      if (rel === "" || rel === STATE_DIR || rel.startsWith(`${STATE_DIR}/`)) return;
      touched.add(rel);
      // A burst of events (a save is often several) is compared once, a moment later.
      flushing ??= setTimeout(flush, 5);
    });
    watcher.on("error", leave);
    let written = false;
    const start = () => {
      options.compare("all");
      if (keeperPid(vault) !== undefined || !stillKeeping(false)) return leave();
      fs.writeFileSync(stateFile(vault, KEEPER_FILE), JSON.stringify({ pid: process.pid }));
      written = true;
      // Requests made before the file existed were answered by a full check of the asker's own.
      for (const stale of fs.readdirSync(syncDir)) fs.rmSync(path.join(syncDir, stale), { force: true });
      process.once("SIGTERM", leave);
      process.once("SIGINT", leave);
      // A parent folder moved or a vault swapped for another raises no event here: look now and then.
      checking = setInterval(() => {
        if (!stillKeeping(true)) leave();
      }, CHECK_MS);
      rest();
      options.onReady?.({ caughtUp: () => ownRequest(syncDir, waiting) });
    };
    try {
      start();
    } catch (err) {
      // The vault went away while the keeper started (its watcher must not hold the process open with
      // no keeper file to stop it by); any other failure is a fault to report.
      const gone = !stillKeeping(written);
      leave();
      if (!gone) reject(err);
    }
  });
}

/** A sync file of the keeper's own, answered by its watcher as any other (see `RunningKeeper`). */
function ownRequest(syncDir: string, waiting: Map<string, (seen: boolean) => void>): Promise<boolean> {
  const name = `${process.pid}-${randomHex(4)}`;
  return new Promise<boolean>((resolve) => {
    const done = (seen: boolean) => {
      clearTimeout(timer);
      waiting.delete(name);
      if (!seen) fs.rmSync(path.join(syncDir, name), { force: true });
      resolve(seen);
    };
    const timer = setTimeout(() => done(false), SYNC_WAIT_MS);
    waiting.set(name, done);
    try {
      fs.writeFileSync(path.join(syncDir, name), "");
    } catch {
      done(false);
    }
  });
}
