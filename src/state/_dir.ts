/**
 * The state folder (`.lorecards`) inside an existing vault. A missing vault is an error, never created
 * here: the folder is made without `recursive`, so a vault that disappears between the check and the
 * mkdir is an error too, not a new empty vault.
 */

import { mkdirSync } from "node:fs";
import path from "node:path";
import { LoreError } from "../errors.ts";
import { STATE_DIR, stateIn } from "../vault/index.ts";
import { checkVaultRoot } from "../vault/root.ts";

/** Makes `<vaultRoot>/<name>` when missing (the vault itself must exist) and returns its path. */
export function ensureStateDir(vaultRoot: string, name = STATE_DIR): string {
  checkVaultRoot(vaultRoot);
  const dir = path.join(vaultRoot, name);
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new LoreError("io_error", `cannot create ${dir}`, { cause: err });
    }
  }
  // Never a link out of the vault (README "Symbolic links"): state and the secret stay inside.
  if (name === STATE_DIR) stateIn(vaultRoot);
  return dir;
}
