/**
 * The one check that a vault folder is there before anything is opened inside it (state.db,
 * style.db, the gateway's and style memory's per-request checks): a missing or unreadable vault is an
 * error, never created by a store. Kept apart from vault/index.ts so a cold start that only needs this
 * loads nothing else.
 */
import { statSync } from "node:fs";
import { LoreError } from "../errors.ts";

/** Throws unless `vaultRoot` is a folder that can be read. */
export function checkVaultRoot(vaultRoot: string): void {
  let isDir = false;
  try {
    isDir = statSync(vaultRoot).isDirectory();
  } catch (err) {
    throw new LoreError("io_error", `the vault ${vaultRoot} cannot be read`, { cause: err });
  }
  if (!isDir) throw new LoreError("io_error", `the vault ${vaultRoot} is not a directory`);
}

/**
 * The folder at `dir` as the file system knows it (device and inode), undefined when no folder is
 * there: another folder put in its place, or a copy, has another identity, which a watcher of the old
 * one would never report.
 */
export function folderId(dir: string): string | undefined {
  const stat = statSync(dir, { throwIfNoEntry: false });
  return stat?.isDirectory() ? `${stat.dev}:${stat.ino}` : undefined;
}

/** True when `vaultRoot` is a folder now (a vault moved away, deleted or never made is not). */
export function isVaultFolder(vaultRoot: string): boolean {
  try {
    return statSync(vaultRoot).isDirectory();
  } catch {
    return false;
  }
}
