/**
 * What a batch placement (_batch.ts) killed part way left behind, settled by the next process that
 * touches the vault (_settle.ts), which holds the vault lock: a staging folder without a plan is
 * deleted (the vault is as it was); one with a plan is finished (rolled forward), its versions recorded
 * as the step would have recorded them.
 */
import fs from "node:fs";
import path from "node:path";
import { PLAN, type PlanFile, PREFIX } from "./_batch.ts";
import { type Placed, recordBatch, recordOf, textOrNull } from "./_batch-history.ts";
import { fsyncDir, statExact } from "./_fs.ts";
import { linkBelow, stateIn } from "./_links.ts";
import type { Vault } from "./paths.ts";

/** Whether a killed import may have left a folder behind (cheap: one directory listing). */
export function hasLeftovers(vault: Vault): boolean {
  return leftovers(vault).length > 0;
}

function leftovers(vault: Vault): string[] {
  let stateDir: string;
  let names: string[];
  try {
    stateDir = stateIn(vault.root); // a linked state folder is not ours to clean
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
 * vault settle leftovers before they write (_settle.ts), so theirs never meet a recovery. A removal
 * not made yet is made unless the card changed since; one already made is recorded from its copy.
 */
function rollForward(vault: Vault, stage: string, plan: PlanFile): void {
  const root = path.resolve(vault.root);
  const inside = (rel: unknown) => {
    const abs = path.resolve(root, String(rel));
    return abs.startsWith(root + path.sep) ? abs : null;
  };
  const dirs = new Set<string>();
  const placed: Placed[] = [];
  for (const move of plan.moves) {
    const staged = path.join(stage, path.basename(String(move.staged)));
    const target = inside(move.target);
    if (target === null || !fs.existsSync(staged)) continue;
    if (linkBelow(vault, path.dirname(target)) !== null) continue;
    if (!move.replaces && fs.existsSync(target)) continue;
    if (move.replaces && changedSince(target, move.was)) continue;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const before = move.replaces ? textOrNull(target) : null;
    const after = textOrNull(staged);
    fs.renameSync(staged, target);
    dirs.add(path.dirname(target));
    if (after !== null) placed.push({ target, before, after, action: move.action });
  }
  for (const removal of plan.removes ?? []) {
    const target = inside(removal.target);
    const aside = path.join(stage, "old", path.basename(String(removal.aside)));
    if (target === null || linkBelow(vault, path.dirname(target)) !== null) continue;
    if (fs.existsSync(target)) {
      if (changedSince(target, removal.was)) continue;
      const before = textOrNull(target);
      fs.rmSync(target);
      dirs.add(path.dirname(target));
      placed.push({ target, before, after: null, action: removal.action });
    } else if (fs.existsSync(aside)) {
      placed.push({ target, before: textOrNull(aside), after: null, action: removal.action });
    }
  }
  for (const d of dirs) fsyncDir(d);
  recordBatch(vault, recordOf(plan.record), placed);
}

/** A replaced card that is present and no longer the file the plan saw (a plan without stats: never). */
function changedSince(target: string, was: { mtime: string; size: number } | undefined): boolean {
  if (was === undefined) return false;
  const now = statExact(target);
  return now !== null && (now.mtime !== String(was.mtime) || now.size !== was.size);
}
