/**
 * Writing a checked backup's files, each fsynced, into a staging folder inside the target's
 * `.lorecards/` (same file system, so the swap that follows is renames only, and a folder the lorecards
 * service may write to: a systemd unit's ReadWritePaths is the vault, not its parent). The swap itself
 * is vault/swap.ts's: journaled, so a killed restore is finished by the next command.
 *
 * A file gets the mode lorecards gives such a file, never the one a manifest names (a forged one can
 * say 0777, or make the marker secret readable by all): cards and settings 0644 (less what the umask
 * takes), lorecards' own state (the databases, the marker secret, the hit log) 0600.
 */
import fs from "node:fs";
import path from "node:path";
import { gcTick } from "../gc-tick.ts";
import { fsyncDir, STATE_DIR } from "../vault/index.ts";
import type { ManifestFile } from "./_manifest.ts";

const abs = (root: string, rel: string) => path.join(root, ...rel.split("/"));

/** The mode lorecards gives the file at vault path `rel`. */
export function modeFor(rel: string): number {
  if (rel.startsWith(`${STATE_DIR}/`)) return 0o600;
  const umask = process.umask();
  return 0o644 & ~umask;
}

/** Write the backup's files under `dir` (which must not exist yet), telling `progress` as it goes. */
export function stageFiles(
  dir: string,
  list: readonly ManifestFile[],
  bytes: Map<string, Uint8Array>,
  progress?: (done: number, total: number) => void,
): void {
  const made = new Set<string>();
  const tick = gcTick(1000);
  for (const [i, f] of list.entries()) {
    tick();
    progress?.(i + 1, list.length);
    const file = abs(dir, f.path);
    const parent = path.dirname(file);
    if (!made.has(parent)) {
      fs.mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    writeDurable(file, bytes.get(f.path)!, modeFor(f.path), f.mtime);
  }
  for (const d of made) fsyncDir(d);
}

/** Write a new file durably with the given mode and modification time. */
function writeDurable(file: string, bytes: Uint8Array, mode: number, mtimeMs: number): void {
  const fd = fs.openSync(file, "wx", mode);
  try {
    fs.writeFileSync(fd, bytes);
    fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  const t = new Date(mtimeMs);
  fs.utimesSync(file, t, t);
}
