/**
 * The state folder (`.lorecards`) inside an existing vault. A missing vault is an error, never created
 * here: the folder is made without `recursive`, so a vault that disappears between the check and the
 * mkdir is an error too, not a new empty vault.
 */

import { mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { LoreError } from "../errors.ts";

/** Throws unless `vaultRoot` is a folder that can be read. */
export function checkVault(vaultRoot: string): void {
  let isDir = false;
  try {
    isDir = statSync(vaultRoot).isDirectory();
  } catch (err) {
    throw new LoreError("io_error", `the vault ${vaultRoot} cannot be read`, { cause: err });
  }
  if (!isDir) throw new LoreError("io_error", `the vault ${vaultRoot} is not a directory`);
}

/** Makes `<vaultRoot>/<name>` when missing (the vault itself must exist) and returns its path. */
export function ensureStateDir(vaultRoot: string, name = ".lorecards"): string {
  checkVault(vaultRoot);
  const dir = path.join(vaultRoot, name);
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new LoreError("io_error", `cannot create ${dir}`, { cause: err });
    }
  }
  return dir;
}
