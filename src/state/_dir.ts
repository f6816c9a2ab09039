/**
 * The state folder (`.lorecards`) inside an existing vault. A missing vault is an error, never created
 * here: the folder is made without `recursive`, so a vault that disappears between the check and the
 * mkdir is an error too, not a new empty vault.
 */

import { lstatSync, mkdirSync } from "node:fs";
import path from "node:path";
import { LoreError } from "../errors.ts";
import { madeStateDir } from "../state-dir.ts";
import { STATE_DIR, stateIn } from "../vault/index.ts";
import { checkVaultRoot } from "../vault/root.ts";

/** Makes `<vaultRoot>/<name>` when missing (the vault itself must exist) and returns its path. */
export function ensureStateDir(vaultRoot: string, name = STATE_DIR): string {
  const dir = path.join(vaultRoot, name);
  // Mostly it is there: one lstat says so (the hit log asks at every append), where the checks and a
  // mkdir refused below cost two more calls and a thrown error. A link is not a folder to lstat, so it
  // takes the way below and is refused there.
  if (lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return dir;
  checkVaultRoot(vaultRoot);
  try {
    mkdirSync(dir);
    if (name === STATE_DIR) madeStateDir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new LoreError("io_error", `cannot create ${dir}`, { cause: err });
    }
  }
  // Never a link out of the vault (README "Symbolic links"): state and the secret stay inside.
  if (name === STATE_DIR) stateIn(vaultRoot);
  return dir;
}
