/** File-system steps the backups share: making a folder's new names durable. */
import fs from "node:fs";

/** fsync a folder so the names just made in it survive a crash; a no-op where folders cannot be opened. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // Windows cannot open a folder for fsync; a rename is atomic there all the same.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Write a new file durably with the given mode and modification time. */
export function writeDurable(file: string, bytes: Uint8Array, mode: number, mtimeMs: number): void {
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
