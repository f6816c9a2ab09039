/**
 * Restoring a backup: into an empty (or missing) folder, or with `force` over a vault, whose current
 * files are backed up first (`before-restore-…`, never rotated away). Each file of the archive is
 * checked (`_unpack.ts`) and staged (`_stage.ts`) as it is read, and once the whole archive has held
 * up, swapped in under the vault lock (vault/swap.ts); a damaged or foreign archive, a non-empty target
 * without `force`, or a failure on the way removes what was staged and leaves the target as it was,
 * and a restore killed during its swap is finished by the next command that touches the vault.
 */
import fs from "node:fs";
import path from "node:path";
import { describeError, LoreError } from "../errors.ts";
import { gcTick } from "../gc-tick.ts";
import {
  type LockOptions,
  linkBelow,
  randomHex,
  STATE_DIR,
  stagedIn,
  swapFolder,
  swapIn,
  type Vault,
  withSettledLock,
} from "../vault/index.ts";
import { replacedPaths, vaultForBackup } from "./_contents.ts";
import type { Manifest } from "./_manifest.ts";
import { Stager } from "./_stage.ts";
import { readBackupAs } from "./_unpack.ts";
import { type BackupResult, writeBackupLocked } from "./write.ts";

export interface RestoreOptions {
  /** The folder to restore into: empty or missing, or a vault with `force`. */
  target: string;
  force?: boolean;
  /** The clock for the name of the backup made before a forced restore. */
  now?: () => number;
  lock?: LockOptions;
  /** Told how many of the backup's files are written so far (a terminal's progress line). */
  progress?: (done: number, total: number) => void;
}

export interface RestoreResult {
  target: string;
  /** Files restored. */
  files: number;
  /** The manifest of the backup restored, without its file list. */
  backup: Omit<Manifest, "files">;
  /** With `force`: the backup of what was replaced (absent when there was nothing to replace). */
  replaced?: BackupResult;
}

type TargetState = "missing" | "empty" | "full";

/** Whether `dir` holds anything; entries named in `ignore` do not count. */
function stateOf(dir: string, ignore: readonly string[] = []): TargetState {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "missing";
    if (code === "ENOTDIR") throw new LoreError("invalid_input", `${dir} is a file, not a folder`);
    throw new LoreError("io_error", `cannot read ${dir}: ${describeError(err)}`, { cause: err });
  }
  return names.some((n) => !ignore.includes(n)) ? "full" : "empty";
}

function notEmpty(dir: string): LoreError {
  return new LoreError(
    "conflict",
    `${dir} is not empty; restore into an empty folder with --to DIR, or restore over what it holds with --force ` +
      "(its current files are backed up first)",
  );
}

/** Refuse a target whose state folder or card folders are links (README "Symbolic links"). */
function refuseLinks(vault: Vault, paths: readonly string[]): void {
  const tick = gcTick();
  for (const rel of [STATE_DIR, ...paths]) {
    tick();
    let link: string | null = null;
    try {
      link = linkBelow(vault, path.join(vault.root, ...rel.split("/")));
    } catch {
      // a file where a folder would be (ENOTDIR): no link; the move into it fails, and is undone
    }
    if (link !== null) {
      throw new LoreError(
        "forbidden",
        `${path.relative(vault.root, link)} is a symbolic link; lorecards never writes through links inside the vault`,
      );
    }
  }
}

/** After a failed restore into an empty or missing folder: remove the state folder (and the folder) it made. */
function undoFolders(target: string, made: boolean): void {
  try {
    fs.rmSync(path.join(target, STATE_DIR), { recursive: true, force: true });
    if (made) fs.rmdirSync(target);
  } catch {
    // something else is in there now: leave it
  }
}

function withoutList({ files, ...about }: Manifest): { about: Omit<Manifest, "files">; count: number } {
  return { about, count: files.length };
}

/** Restore the backup in `file`; see the module comment. */
export async function restoreBackup(file: string, opts: RestoreOptions): Promise<RestoreResult> {
  const target = path.resolve(opts.target);
  let before: TargetState | undefined;
  let vault: Vault | undefined;
  let work = "";
  let stager: Stager | undefined;
  let incoming: string[] = [];
  let replaced: BackupResult | undefined;
  let about: Omit<Manifest, "files">;
  let count: number;
  try {
    // Staged as it is read and checked: a doubt at any entry refuses the archive and removes the folder.
    // The manifest's list is let go of once read: the backup of what is replaced reads as many files.
    ({ about, count } = withoutList(
      await readBackupAs(file, {
        manifest(m) {
          before = stateOf(target);
          if (before === "full" && !opts.force) throw notEmpty(target);
          if (before === "missing") fs.mkdirSync(target, { recursive: true });
          vault = vaultForBackup(target);
          incoming = m.files.map((f) => f.path);
          refuseLinks(vault, incoming);
          fs.mkdirSync(path.join(target, STATE_DIR), { recursive: true });
          work = swapFolder(target, randomHex(4));
          stager = new Stager(stagedIn(work), m.files.length, opts.progress);
        },
        file: (f, bytes) => stager!.add(f, bytes),
      }),
    ));
    await stager!.finish();
    // Staging leaves garbage in the heap that the quick collections of a pass over every file do not
    // reach: one full collection now, or a forced restore's backup and swap pile theirs on top of it
    // (bench/README.md, "restore-backup --force").
    Bun.gc(true);
    const v = vault!;
    await withSettledLock(
      v,
      async () => {
        // Looked at again under the lock: a writer may have come in since.
        if (!opts.force && stateOf(target, [STATE_DIR]) === "full") throw notEmpty(target);
        const old = opts.force ? replacedPaths(v) : [];
        if (old.length > 0)
          replaced = await writeBackupLocked(v, {
            kind: "before-restore",
            withRecalls: true,
            now: opts.now,
          });
        swapIn(target, work, old, incoming);
      },
      opts.lock,
    );
  } catch (err) {
    await stager?.settle();
    if (work !== "") fs.rmSync(work, { recursive: true, force: true });
    if (before !== undefined && before !== "full") undoFolders(target, before === "missing");
    if (err instanceof LoreError) throw err;
    throw new LoreError("io_error", `cannot restore into ${target}: ${describeError(err)}`, {
      cause: err,
    });
  }
  fs.rmSync(work, { recursive: true, force: true });
  return { target, files: count, backup: about, ...(replaced ? { replaced } : {}) };
}
