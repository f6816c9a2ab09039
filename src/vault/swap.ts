/**
 * Files swapped into the vault as one step that a crash cannot leave half done (a restore of a
 * backup). The files come staged under `.lorecards/restore-<pid>-<hex>/new/`. Before the first move,
 * a journal naming what is replaced and what comes in is written and synced (`swap.json`); then what
 * is replaced is moved aside (`old/`) and the staged files are moved in, each move a rename within the
 * vault's file system. A failure part way moves everything back and removes the journal. A process
 * killed part way cannot: the next process that takes the vault lock, or reads the vault while the
 * lock is free (_settle.ts), finds the journal and finishes the swap, so the vault is the new one, as a
 * killed import is finished (_batch-recover.ts). A work folder without a journal is a restore killed
 * before its swap began: the vault is the old one, and the folder (a full copy of a backup's files)
 * is removed once its process is gone.
 */
import fs from "node:fs";
import path from "node:path";
import { LoreError } from "../errors.ts";
import { gcTick } from "../gc-tick.ts";
import { fsyncDir } from "./_fs.ts";
import { linkBelow, stateIn } from "./_links.ts";
import { pidAlive } from "./lock.ts";
import type { Vault } from "./paths.ts";

export const SWAP_PREFIX = "restore-";
const JOURNAL = "swap.json";
const NEW = "new";
const OLD = "old";

interface Journal {
  /** Vault paths (`/`-separated) moved aside. */
  replaced: readonly string[];
  /** Vault paths moved in from the staging folder. */
  incoming: readonly string[];
}

/** `rel`, a vault path (`/`-separated, checked: no `.` or `..` parts), under `root`. */
const abs = (root: string, rel: string) => path.join(root, rel);

/** A new work folder for a swap into `root` (not made yet); stage the files under `stagedIn(work)`. */
export function swapFolder(root: string, hex: string): string {
  return stateIn(root, `${SWAP_PREFIX}${process.pid}-${hex}`);
}

export function stagedIn(work: string): string {
  return path.join(work, NEW);
}

/** The folders moves touched, to be synced once the moves are done. */
class Touched {
  private readonly dirs = new Set<string>();

  /** Renames `from` to `to`, making `to`'s folder first unless a move went there already. */
  move(from: string, to: string): void {
    const into = path.dirname(to);
    if (!this.dirs.has(into)) fs.mkdirSync(into, { recursive: true });
    fs.renameSync(from, to);
    this.dirs.add(path.dirname(from)).add(into);
  }

  sync(): void {
    for (const dir of this.dirs) {
      try {
        fsyncDir(dir);
      } catch {
        // a folder moved away since (an emptied one): nothing to sync
      }
    }
  }
}

function writeJournal(work: string, journal: Journal): void {
  const file = path.join(work, JOURNAL);
  const fd = fs.openSync(file, "wx", 0o600);
  try {
    fs.writeFileSync(fd, JSON.stringify(journal));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fsyncDir(work);
}

/**
 * Move each of `replaced` (vault paths) from `root` into the work folder's `old/`, then each of
 * `incoming` from its `new/` into `root`; anything already at an incoming path is moved aside first,
 * never overwritten. All or nothing, as the module comment says; the caller holds the vault lock.
 */
export function swapIn(
  root: string,
  work: string,
  replaced: readonly string[],
  incoming: readonly string[],
): void {
  writeJournal(work, { replaced, incoming });
  const aside = path.join(work, OLD);
  const staged = stagedIn(work);
  // Each move made, as a number rather than its two paths (a restore makes 200k): replaced[i] moved
  // aside is 3i, what stood at incoming[i] moved aside 3i+1, incoming[i] moved in 3i+2.
  const moveOf = (made: number): [from: string, to: string] => {
    const i = Math.floor(made / 3);
    if (made % 3 === 0) return [abs(root, replaced[i]!), abs(aside, replaced[i]!)];
    const p = incoming[i]!;
    return made % 3 === 1 ? [abs(root, p), abs(aside, p)] : [abs(staged, p), abs(root, p)];
  };
  const touched = new Touched();
  const done: number[] = [];
  const move = (made: number) => {
    touched.move(...moveOf(made));
    done.push(made);
  };
  try {
    for (let i = 0; i < replaced.length; i++) move(3 * i);
    // A restore moves 100k files in: their paths' garbage is collected as it goes (gc-tick.ts).
    const tick = gcTick();
    for (let i = 0; i < incoming.length; i++) {
      tick();
      if (fs.lstatSync(abs(root, incoming[i]!), { throwIfNoEntry: false })) move(3 * i + 1);
      move(3 * i + 2);
    }
  } catch (err) {
    for (const made of done.reverse()) {
      const [from, to] = moveOf(made);
      try {
        fs.renameSync(to, from);
      } catch {
        // left where it is; the backup made before a forced restore still holds it
      }
    }
    fs.rmSync(path.join(work, JOURNAL), { force: true });
    throw new LoreError(
      "io_error",
      `cannot put the backup in place: ${(err as Error).message}; nothing was changed`,
      {
        cause: err,
      },
    );
  }
  touched.sync();
}

/** The work folders of swaps in `vault` (cheap: one directory listing); none when the state folder is a link. */
function workFolders(vault: Vault): { dir: string; pid: number }[] {
  let names: string[];
  let state: string;
  try {
    state = stateIn(vault.root);
    names = fs.readdirSync(state);
  } catch {
    return [];
  }
  const out: { dir: string; pid: number }[] = [];
  for (const name of names) {
    const m = /^restore-(\d+)-[0-9a-f]+$/.exec(name);
    if (m) out.push({ dir: path.join(state, name), pid: Number(m[1]) });
  }
  return out;
}

/** Whether a killed swap may have left something behind (a live one's folder counts too). */
export function hasSwapLeftovers(vault: Vault): boolean {
  return workFolders(vault).length > 0;
}

/** A staging folder older than this is a killed restore's even if its pid is alive (reused since). */
const STAGING_MAX_MS = 60 * 60_000;

/**
 * Settles what killed swaps left; the caller holds the vault lock, so no swap is under way (a swap
 * runs under the lock). With a journal, the swap is finished (run again after a swap that completed,
 * it moves nothing); without one, it never began: its folder is removed once its process is gone (a
 * live restore stages its files before it takes the lock). Returns how many were finished.
 */
export function recoverSwaps(vault: Vault, now = Date.now()): number {
  let finished = 0;
  for (const { dir, pid } of workFolders(vault)) {
    const journal = readJournal(dir);
    if (journal === null) {
      const age = now - (fs.lstatSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? 0);
      if (pidAlive(pid) && age < STAGING_MAX_MS) continue;
    } else {
      rollForward(vault, dir, journal);
      finished++;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return finished;
}

function readJournal(dir: string): Journal | null {
  try {
    const j = JSON.parse(fs.readFileSync(path.join(dir, JOURNAL), "utf8")) as Journal;
    return Array.isArray(j.replaced) && Array.isArray(j.incoming) ? j : null;
  } catch {
    return null;
  }
}

/**
 * The moves a killed swap had not made, in its order: each replaced file still in place goes aside,
 * each staged file still staged comes in (what stands at its path going aside first). Every move that
 * was made left its source empty, so each is made once, whatever the point of the kill.
 */
function rollForward(vault: Vault, dir: string, journal: Journal): void {
  const root = path.resolve(vault.root);
  const inside = (rel: unknown) => {
    const p = path.resolve(root, ...String(rel).split("/"));
    return p.startsWith(root + path.sep) && linkBelow(vault, path.dirname(p)) === null ? p : null;
  };
  const exists = (p: string) => fs.lstatSync(p, { throwIfNoEntry: false }) !== undefined;
  const touched = new Touched();
  const aside = path.join(dir, OLD);
  for (const rel of journal.replaced) {
    const target = inside(rel);
    if (target === null || !exists(target) || exists(abs(aside, String(rel)))) continue;
    touched.move(target, abs(aside, String(rel)));
  }
  for (const rel of journal.incoming) {
    const target = inside(rel);
    const staged = abs(stagedIn(dir), String(rel));
    if (target === null || !exists(staged)) continue;
    // What stands there goes aside, as the swap would have moved it (the backup made before a forced
    // restore holds what was replaced).
    if (exists(target)) {
      const away = abs(aside, String(rel));
      touched.move(target, exists(away) ? `${away}.${process.pid}-${Date.now()}` : away);
    }
    touched.move(staged, target);
  }
  touched.sync();
}
