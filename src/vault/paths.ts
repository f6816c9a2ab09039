/**
 * Where things are: the vault root (flag → $LORECARDS_VAULT → ~/.lorecards, `~` expanded) and the
 * file of each card. Every card path is checked to stay inside the vault.
 */
import path from "node:path";
import { ARCHIVE_DIR, kindByName, STATE_DIR, validateKey } from "../card/index.ts";
import type { KindDef, KindsConfig } from "../card/types.ts";
import { LoreError } from "../errors.ts";

/** An opened vault: its absolute root and its kind table. */
export interface Vault {
  root: string;
  kinds: KindsConfig;
}

export { resolveVaultPath } from "./where.ts";
export { ARCHIVE_DIR, STATE_DIR };

function inside(root: string, p: string): string {
  const rel = path.relative(root, p);
  if (rel.startsWith("..") || path.isAbsolute(rel)) {
    throw new LoreError("invalid_key", `refusing a path outside the vault: ${p}`);
  }
  return p;
}

/** The kind directory (absolute). */
export function kindDir(vault: Vault, kind: KindDef): string {
  return kind.dir === "" ? vault.root : path.join(vault.root, kind.dir);
}

/** Absolute path of a live card; validates the kind and the key. */
export function cardPath(vault: Vault, kind: string, key: string): string {
  const def = kindByName(vault.kinds, kind);
  validateKey(key);
  return inside(vault.root, path.join(kindDir(vault, def), `${key}.md`));
}

/** Path relative to the vault root with `/` separators (as stored in CardMeta.path). */
export function relPath(vault: Vault, abs: string): string {
  return path.relative(vault.root, abs).split(path.sep).join("/");
}

/** Absolute path of the archive directory for a kind. */
export function archiveDir(vault: Vault, kind: KindDef): string {
  return path.join(vault.root, ARCHIVE_DIR, kind.dir);
}
