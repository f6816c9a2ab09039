/**
 * Writing a backup: the vault's files read under the vault lock (so no writer leaves half a set of
 * cards in it, and an import a killed process left half done is settled first), then written as a
 * `.tar.gz` a piece at a time (_tar-write.ts) beside the others, under a name no other backup has. The
 * archive is mode 0600: it holds the marker secret and the conversations' state.
 */
import fs from "node:fs";
import path from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { describeError, LoreError } from "../errors.ts";
import { gcTick } from "../gc-tick.ts";
import {
  fsyncDir,
  type LockOptions,
  randomHex,
  removeStaleTemps,
  stateIn,
  type Vault,
  withSettledLock,
} from "../vault/index.ts";
import { backupSources } from "./_contents.ts";
import {
  FILES_PREFIX,
  FORMAT,
  FORMAT_VERSION,
  MANIFEST_NAME,
  type Manifest,
  manifestPieces,
} from "./_manifest.ts";
import { type BackupKind, backupName } from "./_names.ts";
import { readSources, type SnapshotFile } from "./_snapshot.ts";
import { type TarInput, writeTarGz } from "./_tar-write.ts";
import { MAX_UNPACKED } from "./_unpack.ts";

export interface BackupOptions {
  /** The folder the backup goes in. Default `<vault>/.lorecards/backups`. */
  dir?: string;
  kind?: BackupKind;
  /**
   * Keep state's recall events (index recalls and adoptions): `backup --with-recalls`. Off by default,
   * and for the daily backup always; a backup made before a restore keeps them, losing nothing.
   */
  withRecalls?: boolean;
  /** The clock the name and the manifest's time come from. */
  now?: () => number;
  lock?: LockOptions;
}

export interface BackupResult {
  file: string;
  kind: BackupKind;
  created: string;
  /** Files in it (cards, settings, databases). */
  files: number;
  /** Whether it holds the recall events. */
  recalls: boolean;
  /** Size of the archive. */
  bytes: number;
}

/** Where backups go unless told otherwise. */
export function defaultBackupDir(root: string): string {
  return stateIn(root, "backups");
}

/** Back up `vault`, taking the vault lock while its files are read; they are held until written. */
export async function writeBackup(vault: Vault, opts: BackupOptions = {}): Promise<BackupResult> {
  const dir = prepareDir(opts.dir ?? defaultBackupDir(vault.root));
  await learnStyleInbox(vault.root);
  return withScratch(dir, async (scratch) => {
    const read = () => readSources(backupSources(vault), scratch, { ...opts, holding: "hold" });
    return pack(vault, await withSettledLock(vault, read, opts.lock), dir, opts);
  });
}

/**
 * Back up `vault` while the caller holds the vault lock (a restore, before it replaces the vault):
 * each file is read to be hashed and read again to be written, so one is held at a time.
 */
export async function writeBackupLocked(vault: Vault, opts: BackupOptions = {}): Promise<BackupResult> {
  const dir = prepareDir(opts.dir ?? defaultBackupDir(vault.root));
  await learnStyleInbox(vault.root);
  return withScratch(dir, (scratch) =>
    pack(vault, readSources(backupSources(vault), scratch, { ...opts, holding: "read-again" }), dir, opts),
  );
}

/**
 * style.db is copied as it is: what hooks left in style memory's inbox is learned into it first, so the
 * backup holds what a reader of style memory would see (style/note.ts). A store that cannot take it
 * now is copied as it is, as before.
 */
async function learnStyleInbox(root: string): Promise<void> {
  const { learnWaiting } = await import("../style/index.ts");
  await learnWaiting(root).catch(() => undefined);
}

function prepareDir(dir: string): string {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new LoreError("io_error", `cannot create the backup folder ${dir}: ${describeError(err)}`, {
      cause: err,
    });
  }
  return dir;
}

/** A private folder inside `dir` for the databases' copies, removed afterwards. */
async function withScratch<T>(dir: string, fn: (scratch: string) => T | Promise<T>): Promise<T> {
  removeStaleTemps(dir); // what a killed backup left here (vault/_temps.ts)
  const scratch = path.join(dir, `.scratch-${process.pid}-${randomHex(4)}`);
  fs.mkdirSync(scratch, { mode: 0o700 });
  try {
    return await fn(scratch);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

async function pack(
  vault: Vault,
  files: SnapshotFile[],
  dir: string,
  opts: BackupOptions,
): Promise<BackupResult> {
  const total = files.reduce((sum, f) => sum + f.size, 0);
  if (total > MAX_UNPACKED - 64 * 1024 ** 2) {
    throw new LoreError("too_large", `the vault's files come to ${total} bytes, more than a backup can hold`);
  }
  const at = (opts.now ?? Date.now)();
  const kind = opts.kind ?? "manual";
  const manifest: Manifest = {
    format: FORMAT,
    version: FORMAT_VERSION,
    lorecards: pkg.version,
    kind,
    created: new Date(at).toISOString(),
    vault: vault.root,
    recalls: opts.withRecalls === true,
    // Each SnapshotFile writes itself as its manifest entry: no second list of 100k entries is made.
    files,
  };
  // The manifest goes in as pieces of text, encoded a window at a time: never one string, nor bytes.
  const head: TarInput = { name: MANIFEST_NAME, text: () => manifestPieces(manifest), mtime: at };
  // Each file's bytes are asked for as its turn to be written comes (held, or read again).
  function* entries(): Generator<TarInput> {
    yield head;
    const tick = gcTick(); // what is read again is garbage once written (gc-tick.ts)
    for (const f of files) {
      yield { name: `${FILES_PREFIX}${f.path}`, bytes: f.bytes(), mode: f.mode, mtime: f.mtime };
      tick();
    }
  }
  const { file, bytes } = await writeNew(
    dir,
    (fd) => writeTarGz(fd, entries()),
    (n) => backupName(kind, at, n),
  );
  return {
    file,
    kind,
    created: manifest.created,
    files: files.length,
    recalls: manifest.recalls,
    bytes,
  };
}

/** Give `tmp` the name `file` unless it is taken; false when it is. */
function placeAt(tmp: string, file: string): boolean {
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    // A file system without hard links: a rename, after looking (two backups in one second, one process).
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV") throw err;
    if (fs.existsSync(file)) return false;
    fs.renameSync(tmp, file);
    return true;
  }
}

/**
 * Write the archive `write` makes into a temp file, make it durable, and give it the first free name
 * (never over another backup); returns the path and the archive's size.
 */
async function writeNew(
  dir: string,
  write: (fd: number) => Promise<number>,
  name: (n: number) => string,
): Promise<{ file: string; bytes: number }> {
  const tmp = path.join(dir, `.${process.pid}.${randomHex(4)}.tmp`);
  try {
    const fd = fs.openSync(tmp, "wx", 0o600);
    let bytes: number;
    try {
      bytes = await write(fd);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    for (let n = 1; ; n++) {
      const file = path.join(dir, name(n));
      if (placeAt(tmp, file)) {
        fsyncDir(dir);
        return { file, bytes };
      }
      if (n >= 100) throw new Error("a hundred backups carry this second's name");
    }
  } catch (err) {
    if (err instanceof LoreError) throw err; // a file changed under a backup that reads it again
    throw new LoreError("io_error", `cannot write a backup in ${dir}: ${describeError(err)}`, {
      cause: err,
    });
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
