/**
 * Putting many card files into a vault as one step that a crash cannot leave half done. A vault is a
 * folder of files, so no single rename can swap ten thousand of them in; instead an import is journalled:
 *   1. every file is written and fsynced into a fresh `import-*` folder under `.lorecards/`;
 *   2. `plan.json` (which staged file goes where) is written atomically: from here on the import counts;
 *   3. each staged file is renamed onto its card path (a card it replaces is moved aside into `old/`);
 *   4. the folder is removed.
 * A process killed before step 2 leaves a folder without a plan, which the next run deletes: the vault
 * is as it was. Killed after it, the next run finishes the moves (roll forward): the vault is complete.
 * An error inside a live process undoes its moves at once instead. Callers hold the vault lock.
 */

import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { LoreError } from "../errors.ts";
import { atomicWrite, randomHex, statExact } from "./_fs.ts";
import { linkBelow, refuseLinks } from "./_links.ts";
import { STATE_DIR, type Vault } from "./paths.ts";

/** One file to put in place. */
export interface Placement {
  text: string;
  /** Absolute path of the card file. */
  target: string;
  /** An existing card is being overwritten (--force). */
  replaces: boolean;
}

export type Progress = (done: number, total: number) => void;

const PREFIX = "import-";
const PLAN = "plan.json";

/** Staged files are written this many at a time: file creation and fsync dominate a large import. */
const WRITE_CONCURRENCY = 32;

/** The plan as written to disk: paths relative to the vault, so a moved vault still recovers. */
interface PlanFile {
  moves: { staged: string; target: string; replaces: boolean; was?: { mtime: string; size: number } }[];
}

interface Moved {
  staged: string;
  target: string;
  backup?: string;
}

/**
 * Writes every file, then moves them all into place; all or nothing (see the module comment). A target
 * that is a symbolic link, or in a folder that is one, is refused (`forbidden`) before anything is
 * written: the vault never writes through a link, nor silently replaces one.
 */
export async function placeAll(vault: Vault, files: Placement[], onProgress?: Progress): Promise<void> {
  const stateDir = path.join(vault.root, STATE_DIR);
  const stage = path.join(stateDir, `${PREFIX}${process.pid}-${randomHex(4)}`);
  const dirs = [...new Set(files.map((f) => path.dirname(f.target)))];
  for (const d of dirs) refuseLinks(vault, d);
  for (const f of files) refuseLinks(vault, f.target);
  const madeDirs = [stateDir, ...dirs].filter((d) => !fs.existsSync(d));
  const moved: Moved[] = [];
  const total = files.length * 2;
  try {
    fs.mkdirSync(path.join(stage, "old"), { recursive: true });
    await stageAll(stage, files, (done) => onProgress?.(done, total));
    for (const d of dirs) fs.mkdirSync(d, { recursive: true });
    const plan: PlanFile = {
      moves: files.map((f, i) => ({
        staged: `${i}.md`,
        target: path.relative(vault.root, f.target),
        replaces: f.replaces,
        was: (f.replaces && statExact(f.target)) || undefined,
      })),
    };
    fsyncDir(stage);
    atomicWrite(path.join(stage, PLAN), JSON.stringify(plan));
    files.forEach((f, i) => {
      const step: Moved = { staged: path.join(stage, `${i}.md`), target: f.target };
      if (f.replaces) {
        step.backup = path.join(stage, "old", `${i}.md`);
        fs.renameSync(f.target, step.backup);
      }
      moved.push(step);
      fs.renameSync(step.staged, f.target);
      onProgress?.(files.length + i + 1, total);
    });
    for (const d of dirs) fsyncDir(d);
  } catch (err) {
    // Undo first, then withdraw the plan, so a crash in between still ends in a whole import.
    if (undo(moved)) {
      fs.rmSync(path.join(stage, PLAN), { force: true });
      fs.rmSync(stage, { recursive: true, force: true });
      for (const d of madeDirs.reverse()) fs.rmSync(d, { recursive: true, force: true });
    }
    const where = moved.at(-1)?.target ?? stage;
    throw new LoreError(
      "io_error",
      `import failed at ${where}, nothing was changed: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  fs.rmSync(stage, { recursive: true, force: true });
}

async function stageAll(stage: string, files: Placement[], onDone: (done: number) => void): Promise<void> {
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      await writeDurably(path.join(stage, `${i}.md`), files[i]!.text);
      onDone(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, files.length) }, worker));
}

/** Puts every moved file back where it was, newest first; a replaced card gets its old file back. */
function undo(moved: Moved[]): boolean {
  let clean = true;
  for (const step of [...moved].reverse()) {
    try {
      if (fs.existsSync(step.staged)) {
        if (step.backup && fs.existsSync(step.backup)) fs.renameSync(step.backup, step.target);
        continue;
      }
      fs.renameSync(step.target, step.staged);
      if (step.backup) fs.renameSync(step.backup, step.target);
    } catch {
      clean = false;
    }
  }
  return clean;
}

/** Whether a killed import may have left a folder behind (cheap: one directory listing). */
export function hasLeftovers(vault: Vault): boolean {
  return leftovers(vault).length > 0;
}

function leftovers(vault: Vault): string[] {
  const stateDir = path.join(vault.root, STATE_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(stateDir);
  } catch {
    return [];
  }
  return names.filter((n) => n.startsWith(PREFIX)).map((n) => path.join(stateDir, n));
}

/**
 * Settles what killed imports left behind; the caller holds the vault lock, so no live import owns
 * any of these folders. Returns how many imports were finished (rolled forward).
 */
export function recoverImports(vault: Vault): number {
  let finished = 0;
  for (const stage of leftovers(vault)) {
    const plan = readPlan(stage);
    if (plan !== null) {
      rollForward(vault, stage, plan);
      finished++;
    }
    fs.rmSync(stage, { recursive: true, force: true });
  }
  return finished;
}

function readPlan(stage: string): PlanFile | null {
  try {
    const plan = JSON.parse(fs.readFileSync(path.join(stage, PLAN), "utf8")) as PlanFile;
    return Array.isArray(plan.moves) ? plan : null;
  } catch {
    return null;
  }
}

/**
 * Finishes the moves a killed import had not made. A staged file still present has not been moved;
 * a new card whose path was taken since, or a replaced card that changed since the plan was written
 * (someone wrote it after the crash, without the lock: an editor), is left alone. Writers through the
 * vault settle leftovers before they write (_settle.ts), so theirs never meet a recovery.
 */
function rollForward(vault: Vault, stage: string, plan: PlanFile): void {
  const root = path.resolve(vault.root);
  const dirs = new Set<string>();
  for (const move of plan.moves) {
    const staged = path.join(stage, path.basename(String(move.staged)));
    const target = path.resolve(root, String(move.target));
    if (!target.startsWith(root + path.sep) || !fs.existsSync(staged)) continue;
    if (linkBelow(vault, path.dirname(target)) !== null) continue;
    if (!move.replaces && fs.existsSync(target)) continue;
    if (move.replaces && changedSince(target, move.was)) continue;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.renameSync(staged, target);
    dirs.add(path.dirname(target));
  }
  for (const d of dirs) fsyncDir(d);
}

/** A replaced card that is present and no longer the file the plan saw (a plan without stats: never). */
function changedSince(target: string, was: { mtime: string; size: number } | undefined): boolean {
  if (was === undefined) return false;
  const now = statExact(target);
  return now !== null && (now.mtime !== String(was.mtime) || now.size !== was.size);
}

async function writeDurably(file: string, text: string): Promise<void> {
  const handle = await fsp.open(file, "wx");
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsync a directory so the renames into it survive a crash (a no-op where directories cannot be opened). */
function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {}
}
