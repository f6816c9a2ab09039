/**
 * Putting many card files into a vault as one step that a crash cannot leave half done. A vault is a
 * folder of files, so no single rename can swap ten thousand of them in; instead an import is journalled:
 *   1. every file is written and fsynced into a fresh `import-*` folder under `.lorecards/`, and the
 *      folder is fsynced once (its names);
 *   2. `plan.json` (which staged file goes where) is written atomically: from here on the import counts;
 *   3. each staged file is renamed onto its card path (a card it replaces is moved aside into `old/`),
 *      each card the step takes away (archived, moved to another kind: `removals`) is moved into `old/`
 *      too, and each target folder is fsynced once, so the step is durable when it returns;
 *   4. the card history records one step of a version per card (_batch-history.ts), and the folder is
 *      removed.
 * A process killed before step 2 leaves a folder without a plan, which the next run deletes: the vault
 * is as it was. Killed after it, the next run finishes the moves (roll forward): the vault is complete.
 * An error inside a live process undoes its moves at once instead. Callers hold the vault lock. The
 * recovery is _batch-recover.ts's.
 *
 * Step 1 is most of an import's time. No file's contents are durable until something flushes them (a
 * folder's fsync covers its names, not its files' data): on Linux the staged files are written plain and
 * their file system is synced once when all are written (`syncfs`, _sync-fs.ts), elsewhere each gets an
 * fsync, issued from several threads at once so the file system can commit many together. Either way
 * the files are written by a few worker threads (`Writers`), while this thread goes on making the next
 * texts (a text may be given as a function for that: making cards costs as much as writing them).
 */

import fs from "node:fs";
import path from "node:path";
import type { Card } from "../card/types.ts";
import { describeError, LoreError } from "../errors.ts";
import { type BatchRecord, IMPORT_RECORD, recordBatch, textOrNull } from "./_batch-history.ts";
import type { KnownFile } from "./_compare.ts";
import { atomicWrite, fsyncDir, randomHex, statExact } from "./_fs.ts";
import { refuseLinks, stateIn } from "./_links.ts";
import { Writers, type WrittenStat } from "./_stage-writers.ts";
import { syncsAtOnce, syncWritten } from "./_sync-fs.ts";
import type { Action } from "./history.ts";
import type { Vault } from "./paths.ts";

/** One file to put in place. */
export interface Placement {
  /**
   * The file's contents, or a function that makes them: it is called once, while the files before it
   * are being written. When it throws, nothing is changed and its error is thrown as it is.
   */
  text: string | (() => string | ParsedText);
  /** Absolute path of the card file. */
  target: string;
  /** An existing card is being overwritten (--force). */
  replaces: boolean;
  /** How its version is recorded; default the batch's action. */
  action?: Action;
}

/** A text made together with the card it parses as: the index takes the card (see placeAll's `known`). */
export interface ParsedText {
  text: string;
  card: Card;
}

/** A card file the same step takes away (archived, moved to another kind, an undone create). */
export interface Removal {
  /** Absolute path of the card file. */
  target: string;
  action: Action;
}

export type Progress = (done: number, total: number) => void;

export const PREFIX = "import-";
export const PLAN = "plan.json";

/**
 * Threads writing staged files. Each mostly waits for the disk, so there can be more than cores; eight
 * keep enough fsyncs in flight to share journal commits (measured: bench/import.ts) for a few MB of memory.
 */
const WRITERS = 8;
/**
 * Files handed to a writer at once: few messages, yet the writers start while the texts are still being
 * made. A smaller import is spread over fewer writers, each with MIN_CHUNK files or more: starting a
 * thread costs about as much as a few dozen fsyncs one after another (~10 ms).
 */
const CHUNK = 128;
const MIN_CHUNK = 64;

type Stats = { mtime: string; size: number };

/** The plan as written to disk: paths relative to the vault, so a moved vault still recovers. */
export interface PlanFile {
  moves: { staged: string; target: string; replaces: boolean; was?: Stats; action?: Action }[];
  /** Card files taken away: each goes to `aside` (in the staging folder) while it was still `was`. */
  removes?: { target: string; aside: string; was?: Stats; action: Action }[];
  /** How the versions are recorded, so a recovery records them as the import would have. */
  record?: BatchRecord;
}

/** A step done, to be undone if a later one fails: a staged file moved in, or a card moved aside. */
interface Moved {
  staged: string;
  target: string;
  backup?: string;
  /** A removal: the card went to `backup`, and nothing came in its place. */
  removed?: boolean;
}

/** A text function threw: not an I/O failure, so placeAll passes the error on as it is. */
class TextFailed {
  constructor(readonly error: unknown) {}
}

/**
 * Writes every file, then moves them all into place and takes every removal away; all or nothing (see
 * the module comment). A target that is a symbolic link, or in a folder that is one, is refused
 * (`forbidden`) before anything is written: the vault never writes through a link, nor silently
 * replaces one. The cards placed and removed are one step of the card history, recorded as `record`
 * says (default: by an import); resolves to that step's number (null when history could not record it).
 * Each placed file whose text came with its card is added to `known` (by absolute path, with the inode,
 * mtime and size its writer left it with), for loadIndex to take instead of reading and parsing it again.
 */
export async function placeAll(
  vault: Vault,
  files: Placement[],
  onProgress?: Progress,
  record: BatchRecord = IMPORT_RECORD,
  removals: readonly Removal[] = [],
  known?: Map<string, KnownFile>,
): Promise<number | null> {
  const stateDir = stateIn(vault.root);
  const stage = path.join(stateDir, `${PREFIX}${process.pid}-${randomHex(4)}`);
  const dirs = [...new Set(files.map((f) => path.dirname(f.target)))];
  for (const d of dirs) refuseLinks(vault, d);
  for (const f of [...files, ...removals]) refuseLinks(vault, f.target);
  const madeDirs = [stateDir, ...dirs].filter((d) => !fs.existsSync(d));
  const moved: Moved[] = [];
  const total = files.length * 2 + removals.length;
  let texts: string[] = [];
  try {
    fs.mkdirSync(path.join(stage, "old"), { recursive: true });
    const staged = await stageAll(stage, files, (done) => onProgress?.(done, total));
    texts = staged.texts;
    for (const d of dirs) fs.mkdirSync(d, { recursive: true });
    const plan: PlanFile = {
      moves: files.map((f, i) => ({
        staged: `${i}.md`,
        target: path.relative(vault.root, f.target),
        replaces: f.replaces,
        was: (f.replaces && statExact(f.target)) || undefined,
        action: f.action,
      })),
      removes: removals.map((r, i) => ({
        target: path.relative(vault.root, r.target),
        aside: `old/r${i}.md`,
        was: statExact(r.target) ?? undefined,
        action: r.action,
      })),
      record,
    };
    // The staged names, the staging folder's own name and the folders made must be durable before the
    // plan counts: a crash must not lose a file or folder a plan names.
    for (const d of new Set([stage, ...parentsOf([stage, ...madeDirs])])) fsyncDir(d);
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
    removals.forEach((r, i) => {
      const backup = path.join(stage, "old", `r${i}.md`);
      fs.renameSync(r.target, backup);
      moved.push({ staged: "", target: r.target, backup, removed: true });
      onProgress?.(files.length * 2 + i + 1, total);
    });
    for (const d of new Set([...dirs, ...removals.map((r) => path.dirname(r.target))])) fsyncDir(d);
    staged.cards.forEach((card, i) => {
      const [ino, mtimeNs, size] = staged.stats[i]!;
      if (card !== undefined) known?.set(files[i]!.target, { ino, mtimeNs, size, card });
    });
  } catch (err) {
    // Undo first, then withdraw the plan, so a crash in between still ends in a whole import.
    if (undo(moved)) {
      fs.rmSync(path.join(stage, PLAN), { force: true });
      fs.rmSync(stage, { recursive: true, force: true });
      for (const d of madeDirs.reverse()) fs.rmSync(d, { recursive: true, force: true });
    }
    if (err instanceof TextFailed) throw err.error;
    const where = moved.at(-1)?.target ?? stage;
    const what = record.action === "import" ? "import" : "change";
    throw new LoreError(
      "io_error",
      `${what} failed at ${where}, nothing was changed: ${describeError(err)}`,
      {
        cause: err,
      },
    );
  }
  // The replaced and removed cards are still in `old/` until the folder goes.
  const placed = moved.map((m, i) =>
    m.removed
      ? {
          target: m.target,
          before: textOrNull(m.backup),
          after: null,
          action: removals[i - files.length]!.action,
        }
      : { target: m.target, before: textOrNull(m.backup), after: texts[i]!, action: files[i]!.action },
  );
  const step = recordBatch(vault, record, placed);
  fs.rmSync(stage, { recursive: true, force: true });
  return step;
}

/** The folders holding the entries of folders that were just made (their names need an fsync there). */
function parentsOf(made: string[]): string[] {
  return made.map((d) => path.dirname(d));
}

/**
 * Writes and fsyncs every file into `stage` as `<i>.md`, a chunk of files at a time, spread over the
 * writers; the texts are made here meanwhile. Returns once every file is durable, or throws the first
 * failure once no writer is still writing (so a caller removing the folder never races one). Resolves
 * to the texts written, in order (the history records them), the cards that came with them, and each
 * file's stats as written.
 */
async function stageAll(
  stage: string,
  files: Placement[],
  onDone: (done: number) => void,
): Promise<{ texts: string[]; cards: (Card | undefined)[]; stats: WrittenStat[] }> {
  const size = Math.max(MIN_CHUNK, Math.min(CHUNK, Math.ceil(files.length / WRITERS)));
  const atOnce = syncsAtOnce();
  const writers = new Writers(Math.min(WRITERS, Math.ceil(files.length / size)), !atOnce);
  const writing: Promise<void>[] = [];
  const texts: string[] = [];
  const cards: (Card | undefined)[] = [];
  const stats: WrittenStat[] = [];
  let done = 0;
  let failed: unknown;
  try {
    for (let i = 0; i < files.length && failed === undefined; i += size) {
      const chunk = files.slice(i, i + size).map((f, j): [string, string] => {
        try {
          const made = typeof f.text === "string" ? f.text : f.text();
          const text = typeof made === "string" ? made : made.text;
          texts.push(text);
          cards.push(typeof made === "string" ? undefined : made.card);
          return [path.join(stage, `${i + j}.md`), text];
        } catch (err) {
          throw new TextFailed(err);
        }
      });
      const wrote = writers.write(chunk).then(
        (written) => {
          for (let j = 0; j < written.length; j++) stats[i + j] = written[j]!;
          done += written.length;
          onDone(done);
        },
        (err: unknown) => {
          failed ??= err;
        },
      );
      writing.push(wrote);
      // Let finished chunks report (progress, a failure that ends the loop) between two chunks.
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    await Promise.all(writing);
    writers.close();
  }
  if (failed !== undefined) throw failed;
  if (atOnce) syncWritten(stage);
  return { texts, cards, stats };
}

/** Puts every moved file back where it was, newest first; a replaced or removed card gets its file back. */
function undo(moved: Moved[]): boolean {
  let clean = true;
  for (const step of [...moved].reverse()) {
    try {
      if (step.removed) {
        if (step.backup && fs.existsSync(step.backup)) fs.renameSync(step.backup, step.target);
        continue;
      }
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
