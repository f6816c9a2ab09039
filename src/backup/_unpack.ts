/**
 * Reading a backup back, trusting nothing, in memory bounded by what its manifest vouches for: the
 * archive is inflated as a stream and its tar read entry by entry (`_tar.ts`). The manifest comes first
 * (a backup is written so) and says what may follow; each entry is judged by its header before a byte
 * of it is inflated: it must be a plain file the manifest lists, of the size the manifest gives, under
 * a path a backup can hold. Anything else (an unlisted file, a symbolic link, a FIFO, a device, an
 * entry larger than it says) refuses the whole archive there, so a gzip bomb costs what its first
 * header costs, not the 2 GiB it once did. Each kept file is hashed as it arrives and checked against
 * the manifest's SHA-256, and handed on only then. Any doubt refuses the archive: `readBackup` holds
 * every file until the end; a restore stages each as it comes (readBackupAs) and removes them all when
 * a later entry refuses the archive.
 */
import fs from "node:fs";
import zlib from "node:zlib";
import { describeError, LoreError } from "../errors.ts";
import { gcTick } from "../gc-tick.ts";
import {
  FILES_PREFIX,
  MANIFEST_NAME,
  type Manifest,
  type ManifestFile,
  parseManifest,
  refusal,
} from "./_manifest.ts";
import { readTar, TarError, type TarSink } from "./_tar.ts";

/**
 * The most a backup may unpack to, in bytes: a backup is written in memory (and `readBackup` holds one),
 * and a home server has little, so no larger one is made or read.
 */
export const MAX_UNPACKED = 1024 ** 3;
/** The most the manifest itself may take. */
const MAX_MANIFEST = 64 * 1024 ** 2;

export interface UnpackedBackup {
  manifest: Manifest;
  /** Each manifest file's bytes, by vault path, checked. */
  files: Map<string, Uint8Array>;
}

/** The archive as a stream of inflated bytes, once it is seen to be there and to be gzip. */
function inflated(file: string): AsyncIterable<Uint8Array> {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new LoreError("not_found", `no backup at ${file}`);
    throw new LoreError("io_error", `cannot read ${file}: ${describeError(err)}`, { cause: err });
  }
  const magic = Buffer.alloc(2);
  try {
    if (fs.fstatSync(fd).isDirectory())
      throw new LoreError("invalid_input", `${file} is a folder, not a backup file`);
    fs.readSync(fd, magic, 0, 2, 0);
  } catch (err) {
    fs.closeSync(fd);
    if (err instanceof LoreError) throw err;
    throw new LoreError("io_error", `cannot read ${file}: ${describeError(err)}`, { cause: err });
  }
  if (magic[0] !== 0x1f || magic[1] !== 0x8b) {
    fs.closeSync(fd);
    throw refusal(file, "it is not a .tar.gz file");
  }
  return fs.createReadStream(file, { fd, start: 0 }).pipe(zlib.createGunzip());
}

/**
 * Where the kept files' bytes live: views into slabs of a megabyte. A buffer of its own per file cost
 * about 3 KB besides its bytes, 340 MB for a 100k-card backup of 65 MB.
 */
class Slabs {
  private slab = new Uint8Array(0);
  private used = 0;
  constructor(private readonly size = SLAB) {}

  /** `parts` copied into one view. */
  keep(parts: readonly Uint8Array[]): Uint8Array {
    const size = parts.reduce((n, p) => n + p.length, 0);
    if (this.used + size > this.slab.length) {
      this.slab = new Uint8Array(Math.max(this.size, size));
      this.used = 0;
    }
    const view = this.slab.subarray(this.used, this.used + size);
    let at = 0;
    for (const p of parts) {
      view.set(p, at);
      at += p.length;
    }
    this.used += size;
    return view;
  }
}

const SLAB = 1024 ** 2;

/** Collects one entry's bytes, hashing them as they come. */
function collector(
  onEnd: (bytes: Uint8Array, sha256: string) => void | Promise<void>,
  keep: (parts: readonly Uint8Array[]) => Uint8Array = own,
): TarSink {
  const parts: Uint8Array[] = [];
  const hash = new Bun.CryptoHasher("sha256");
  return {
    data(bytes) {
      parts.push(bytes);
      hash.update(bytes);
    },
    end() {
      return onEnd(keep(parts), hash.digest("hex"));
    },
  };
}

/** `parts` copied into a buffer of their own. */
function own(parts: readonly Uint8Array[]): Uint8Array {
  return new Slabs(0).keep(parts);
}

/**
 * The manifest's files by path and every folder above them, as archive names: a lookup per entry (a
 * scan of the list per entry made a 100k-card restore quadratic, about 40 s of CPU).
 */
function listing(manifest: Manifest) {
  const byPath = new Map(manifest.files.map((f) => [f.path, f]));
  const folders = new Set<string>();
  for (const f of manifest.files) {
    const name = `${FILES_PREFIX}${f.path}`;
    for (let at = name.lastIndexOf("/"); at > 0; at = name.lastIndexOf("/", at - 1)) {
      const folder = name.slice(0, at);
      if (folders.has(folder)) break;
      folders.add(folder);
    }
  }
  return { byPath, folders };
}

/** The reader's own failure (a file it could not write): passed on as it is, never as a broken archive. */
class ReaderFailed {
  constructor(readonly error: unknown) {}
}

/** What a streamed read tells as it goes (readBackupAs). */
export interface BackupReader {
  /** The manifest, checked, before any file. */
  manifest(manifest: Manifest): void;
  /** A file the manifest lists, checked (size, SHA-256), in a buffer of its own; reading waits for it. */
  file(f: ManifestFile, bytes: Uint8Array): void | Promise<void>;
}

/** Read and check the backup in `file`, holding every file; throws `parse_error` for a damaged or foreign archive. */
export async function readBackup(file: string, max = MAX_UNPACKED): Promise<UnpackedBackup> {
  const files = new Map<string, Uint8Array>();
  let manifest: Manifest | undefined;
  const slabs = new Slabs();
  await readBackupAs(
    file,
    {
      manifest: (m) => {
        manifest = m;
      },
      file: (f, bytes) => {
        files.set(f.path, bytes);
      },
    },
    max,
    (parts) => slabs.keep(parts),
  );
  return { manifest: manifest!, files };
}

/**
 * Read and check the backup in `file`, handing each file to `reader` once it is checked, so that none
 * need be held; throws `parse_error` for a damaged or foreign archive, which may come after files were
 * handed on (a file missing at the end, a later entry that does not match).
 */
export async function readBackupAs(
  file: string,
  reader: BackupReader,
  max = MAX_UNPACKED,
  keep: (parts: readonly Uint8Array[]) => Uint8Array = own,
): Promise<Manifest> {
  const stream = inflated(file);
  let manifest: Manifest | undefined;
  /** The manifest's files by path, and the folders that hold them (archive names): looked up per entry. */
  let listed: { byPath: Map<string, Manifest["files"][number]>; folders: Set<string> } | undefined;
  const seen = new Set<string>();
  // Inflating leaves its chunks behind faster than the files it keeps (gc-tick.ts).
  const tick = gcTick(1000);
  try {
    await readTar(stream, (entry) => {
      tick();
      if (entry.kind !== "file" && !(entry.kind === "directory" && manifest)) {
        throw refusal(file, `${entry.name} is ${entry.kind}, which no backup holds`);
      }
      if (manifest === undefined) {
        if (entry.name !== MANIFEST_NAME) throw refusal(file, `it does not open with ${MANIFEST_NAME}`);
        if (entry.size > MAX_MANIFEST) throw refusal(file, `its ${MANIFEST_NAME} has ${entry.size} bytes`);
        return collector((bytes) => {
          const m = parseManifest(new TextDecoder().decode(bytes), file);
          const total = m.files.reduce((sum, f) => sum + f.size, 0);
          if (total > max) throw refusal(file, `it unpacks to ${total} bytes, more than ${max}`);
          manifest = m;
          listed = listing(m);
          try {
            reader.manifest(m);
          } catch (err) {
            throw new ReaderFailed(err);
          }
        });
      }
      if (listed === undefined) throw refusal(file, `its ${MANIFEST_NAME} came without its files`);
      if (entry.kind === "directory") {
        if (listed.folders.has(entry.name.replace(/\/$/, ""))) return null;
        throw refusal(file, `the folder ${entry.name} is not in its manifest`);
      }
      const path = entry.name.startsWith(FILES_PREFIX) ? entry.name.slice(FILES_PREFIX.length) : null;
      const f = path === null ? undefined : listed.byPath.get(path);
      if (f === undefined) throw refusal(file, `${entry.name} is not in its manifest`);
      if (seen.has(f.path)) throw refusal(file, `${entry.name} is in it twice`);
      if (entry.size !== f.size) throw refusal(file, `${f.path} has ${entry.size} bytes, not ${f.size}`);
      seen.add(f.path);
      return collector(async (bytes, sha256) => {
        if (sha256 !== f.sha256) throw refusal(file, `${f.path} does not match its SHA-256`);
        try {
          await reader.file(f, bytes);
        } catch (err) {
          throw new ReaderFailed(err);
        }
      }, keep);
    });
  } catch (err) {
    if (err instanceof ReaderFailed) throw err.error;
    if (err instanceof LoreError) throw err;
    if (err instanceof TarError) throw refusal(file, err.message, err);
    throw refusal(file, "its compressed data is broken", err);
  } finally {
    (stream as unknown as { destroy?: () => void }).destroy?.();
  }
  if (manifest === undefined) throw refusal(file, `it has no ${MANIFEST_NAME}`);
  for (const f of manifest.files) if (!seen.has(f.path)) throw refusal(file, `${f.path} is missing`);
  return manifest;
}
