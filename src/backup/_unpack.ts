/**
 * Reading a backup back, trusting nothing: the archive is unpacked in memory (gzip with a cap on the
 * unpacked size, so a small bomb cannot fill the memory), the manifest is read, and every file must be
 * in the archive with the size and SHA-256 the manifest gives, under a path a backup can hold, with
 * nothing else beside them. Any doubt refuses the whole archive before anything is written.
 * `Bun.Archive` reads the tar; its `extract()` is not used, since it writes names like `../x` as given.
 */
import fs from "node:fs";
import zlib from "node:zlib";
import { describeError, LoreError } from "../errors.ts";
import { FILES_PREFIX, MANIFEST_NAME, type Manifest, parseManifest, refusal, sha256 } from "./_manifest.ts";

/** The most a backup may unpack to. Backups are written in memory, so no larger one can be made. */
export const MAX_UNPACKED = 2 * 1024 ** 3;

export interface UnpackedBackup {
  manifest: Manifest;
  /** Each manifest file's bytes, by vault path, checked. */
  files: Map<string, Uint8Array>;
}

function readArchiveFile(file: string): Uint8Array {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new LoreError("not_found", `no backup at ${file}`);
    if (code === "EISDIR") throw new LoreError("invalid_input", `${file} is a folder, not a backup file`);
    throw new LoreError("io_error", `cannot read ${file}: ${describeError(err)}`, { cause: err });
  }
}

function gunzip(bytes: Uint8Array, file: string, max: number): Uint8Array {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) throw refusal(file, "it is not a .tar.gz file");
  try {
    return zlib.gunzipSync(bytes, { maxOutputLength: max });
  } catch (err) {
    const tooBig = (err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE";
    throw refusal(
      file,
      tooBig ? `it unpacks to more than ${max} bytes` : "its compressed data is broken",
      err,
    );
  }
}

async function tarEntries(tar: Uint8Array, file: string): Promise<Map<string, File>> {
  try {
    return await new Bun.Archive(tar).files();
  } catch (err) {
    throw refusal(file, `the tar inside cannot be read (${describeError(err)})`, err);
  }
}

/** Read and check the backup in `file`; throws `parse_error` for a damaged or foreign archive. */
export async function readBackup(file: string, max = MAX_UNPACKED): Promise<UnpackedBackup> {
  const entries = await tarEntries(gunzip(readArchiveFile(file), file, max), file);
  const manifestEntry = entries.get(MANIFEST_NAME);
  if (manifestEntry === undefined) throw refusal(file, `it has no ${MANIFEST_NAME}`);
  const manifest = parseManifest(await manifestEntry.text(), file);
  const listed = new Set(manifest.files.map((f) => `${FILES_PREFIX}${f.path}`));
  for (const name of entries.keys()) {
    if (name !== MANIFEST_NAME && !listed.has(name)) throw refusal(file, `${name} is not in its manifest`);
  }
  const files = new Map<string, Uint8Array>();
  for (const f of manifest.files) {
    const entry = entries.get(`${FILES_PREFIX}${f.path}`);
    if (entry === undefined) throw refusal(file, `${f.path} is missing`);
    const bytes = await entry.bytes();
    if (bytes.length !== f.size) throw refusal(file, `${f.path} has ${bytes.length} bytes, not ${f.size}`);
    if (sha256(bytes) !== f.sha256) throw refusal(file, `${f.path} does not match its SHA-256`);
    files.set(f.path, bytes);
  }
  return { manifest, files };
}
