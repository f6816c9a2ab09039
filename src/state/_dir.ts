/**
 * The `.lorecards` folder inside an existing vault. A missing vault is an error, never created here:
 * the folder is made without `recursive`, so a vault that disappears between the check and the
 * mkdir is an error too, not a new empty vault.
 */

import { mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { LoreError } from "../errors.ts";

export function ensureStateDir(vaultRoot: string): string {
  let isDir = false;
  try {
    isDir = statSync(vaultRoot).isDirectory();
  } catch (err) {
    throw new LoreError("io_error", `the vault ${vaultRoot} cannot be read`, { cause: err });
  }
  if (!isDir) throw new LoreError("io_error", `the vault ${vaultRoot} is not a directory`);
  const dir = path.join(vaultRoot, ".lorecards");
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new LoreError("io_error", `cannot create ${dir}`, { cause: err });
    }
  }
  return dir;
}
