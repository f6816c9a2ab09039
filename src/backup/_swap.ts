/**
 * Putting a checked backup in place. Its files are first written, each fsynced, into a staging folder
 * inside the target's `.lorecards/` (same file system, so every later step is a rename, and a folder
 * the lorecards service may write to: a systemd unit's ReadWritePaths is the vault, not its parent).
 * Then, under the vault lock, what is being replaced is moved aside and the staged files are moved in.
 * A failure part way moves everything back: the vault is as it was. (A process killed part way cannot
 * do that; the backup made of the vault before a `--force` restore is then the way back.)
 */
import fs from "node:fs";
import path from "node:path";
import { describeError, LoreError } from "../errors.ts";
import { fsyncDir } from "../vault/index.ts";
import type { ManifestFile } from "./_manifest.ts";

const abs = (root: string, rel: string) => path.join(root, ...rel.split("/"));

/** Write the backup's files under `dir` (which must not exist yet). */
export function stageFiles(dir: string, list: readonly ManifestFile[], bytes: Map<string, Uint8Array>): void {
  const made = new Set<string>();
  for (const f of list) {
    const file = abs(dir, f.path);
    const parent = path.dirname(file);
    if (!made.has(parent)) {
      fs.mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    writeDurable(file, bytes.get(f.path)!, (f.mode & 0o777) | 0o600, f.mtime);
  }
  for (const d of made) fsyncDir(d);
}

/** Write a new file durably with the given mode and modification time. */
function writeDurable(file: string, bytes: Uint8Array, mode: number, mtimeMs: number): void {
  const fd = fs.openSync(file, "wx", mode);
  try {
    fs.writeFileSync(fd, bytes);
    fs.fchmodSync(fd, mode); // the umask narrowed what openSync gave
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  const t = new Date(mtimeMs);
  fs.utimesSync(file, t, t);
}

type Move = [from: string, to: string];

function moveTo(from: string, to: string, done: Move[]): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.renameSync(from, to);
  done.push([from, to]);
}

/**
 * Move each of `replaced` (vault paths) from `root` into `aside`, then each of `incoming` from
 * `staged` into `root`; anything already at an incoming path is moved aside first, never overwritten.
 * All or nothing, as above.
 */
export function swapIn(
  root: string,
  staged: string,
  aside: string,
  replaced: readonly string[],
  incoming: readonly string[],
): void {
  const done: Move[] = [];
  try {
    for (const p of replaced) moveTo(abs(root, p), abs(aside, p), done);
    for (const p of incoming) {
      const target = abs(root, p);
      if (fs.lstatSync(target, { throwIfNoEntry: false })) moveTo(target, abs(aside, p), done);
      moveTo(abs(staged, p), target, done);
    }
  } catch (err) {
    for (const [from, to] of done.reverse()) {
      try {
        fs.renameSync(to, from);
      } catch {
        // left where it is; the backup made before a forced restore still holds it
      }
    }
    throw new LoreError(
      "io_error",
      `cannot put the backup in place: ${describeError(err)}; nothing was changed`,
      {
        cause: err,
      },
    );
  }
  for (const dir of new Set(done.flatMap(([from, to]) => [path.dirname(from), path.dirname(to)])))
    fsyncDir(dir);
}
