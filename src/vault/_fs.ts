/**
 * Durable file primitives: atomic replace (temp in the same directory + fsync + rename + fsync of the
 * directory where the OS allows it) and atomic exclusive create. Temp names start with a dot so a
 * vault walk never mistakes them for cards.
 */
import fs from "node:fs";
import path from "node:path";
import { describeError, LoreError } from "../errors.ts";

function tempName(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomHex(4)}.tmp`);
}

/** fsync a directory so a rename inside it survives a crash; a no-op where directories cannot be opened. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // Windows cannot open a directory for fsync; the rename is still atomic there.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function writeTemp(file: string, data: string | Uint8Array): string {
  const tmp = tempName(file);
  let mode = 0o644;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {}
  const fd = fs.openSync(tmp, "wx", mode);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  return tmp;
}

function ioError(what: string, file: string, err: unknown): LoreError {
  return new LoreError("io_error", `${what} ${file}: ${describeError(err)}`, { cause: err });
}

/** Replace `file` with `data` atomically: readers see the old or the new content, never a mix. */
export function atomicWrite(file: string, data: string | Uint8Array): void {
  let tmp: string | undefined;
  try {
    tmp = writeTemp(file, data);
    fs.renameSync(tmp, file);
  } catch (err) {
    if (tmp !== undefined) fs.rmSync(tmp, { force: true });
    throw ioError("cannot write", file, err);
  }
  fsyncDir(path.dirname(file));
}

/** Create `file` with `data` atomically, only if it does not exist. Returns false when it existed. */
export function atomicCreate(file: string, data: string | Uint8Array): boolean {
  if (fs.existsSync(file)) return false;
  const tmp = writeTemp(file, data);
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    // Some file systems have no hard links: fall back to an exclusive create.
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV") throw ioError("cannot create", file, err);
    try {
      fs.writeFileSync(file, data, { flag: "wx" });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw ioError("cannot create", file, e);
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  fsyncDir(path.dirname(file));
  return true;
}

/** A bigint-exact stat, or null when the file is gone. */
/**
 * Make sure a rewritten file's mtime moved. File times are coarse on some systems (a few ms), so a
 * rewrite right after a read can keep the old mtime; an editor's optimistic lock and the index cache
 * would then miss the change. When that happens, the new mtime is set 1 ms past the old one.
 */
export function advanceMtime(file: string, before: string): void {
  const after = statExact(file);
  if (after === null || after.mtime !== before) return;
  const seconds = (Number(BigInt(before) / 1000n) + 1000) / 1e6;
  fs.utimesSync(file, new Date(), seconds);
}

export function statExact(file: string): { mtime: string; size: number } | null {
  try {
    const st = fs.statSync(file, { bigint: true });
    return { mtime: st.mtimeNs.toString(), size: Number(st.size) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

/**
 * `n` random bytes as hex, from Web Crypto. Not node:crypto: loading that module costs ~2.5 ms of
 * every cold start, and the hook starts on every prompt.
 */
export function randomHex(n: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(n))).toString("hex");
}
