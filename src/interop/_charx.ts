/**
 * CHARX archives (Character Card spec 5.4): a zip with `card.json` at its root. The archive is
 * untrusted, so it is read defensively with @zip.js/zip.js (loaded only when a zip shows up): unsafe
 * names, encrypted entries, too many entries, and entries that inflate past a cap or past the size they
 * declare are refused. Nothing is ever extracted to disk.
 */

import { describeError, LoreError } from "../errors.ts";
import { badFile } from "./_model.ts";

export interface ZipLimits {
  /** Most bytes any one entry may inflate to (default 32 MiB). */
  maxEntryBytes: number;
  /** Most bytes all copied entries together may inflate to (default 256 MiB). */
  maxTotalBytes: number;
  /** Most entries in the archive (default 10,000). */
  maxEntries: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntryBytes: 32 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxEntries: 10_000,
};

export function isZip(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04
  );
}

const EOCD = 0x06054b50;
const LOCAL_HEADER = 0x04034b50;
/** The end record is 22 bytes plus a comment of at most 65,535. */
const EOCD_SEARCH = 22 + 0xffff;

/**
 * A zip that follows other bytes (RisuAI writes CHARX files as a JPEG with the archive appended): its
 * end-of-central-directory record, found from the end, says how long the central directory is and
 * where it starts relative to the archive, so the archive's first byte is the record's position less
 * both. The bytes there must open a local file header; otherwise there is no embedded archive (null).
 */
export function embeddedZip(bytes: Uint8Array): Uint8Array | null {
  if (bytes.length < 22) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stop = Math.max(0, bytes.length - EOCD_SEARCH);
  for (let at = bytes.length - 22; at >= stop; at--) {
    if (view.getUint32(at, true) !== EOCD) continue;
    const size = view.getUint32(at + 12, true);
    const offset = view.getUint32(at + 16, true);
    const start = at - size - offset;
    if (start <= 0 || start + 4 > bytes.length) continue;
    if (view.getUint32(start, true) === LOCAL_HEADER) return bytes.subarray(start);
  }
  return null;
}

/** A name that could land outside the folder it is extracted into, on any OS. */
export function unsafeEntryName(name: string): boolean {
  if (name === "" || name.includes("\0")) return true;
  if (name.startsWith("/") || name.startsWith("\\") || /^[A-Za-z]:/.test(name)) return true;
  return name.split(/[/\\]/).some((part) => part === "..");
}

async function zipjs() {
  const zip = await import("@zip.js/zip.js");
  zip.configure({ useWebWorkers: false });
  return zip;
}

type ZipJs = Awaited<ReturnType<typeof zipjs>>;
type ZipEntry = Awaited<ReturnType<InstanceType<ZipJs["ZipReader"]>["getEntries"]>>[number];

export interface CharxContents {
  cardJson: string;
  /** Every other file entry, read only when asked for (to carry assets into an export). */
  others: { name: string; data: Uint8Array }[];
}

/** Reads `card.json` (and, with `withOthers`, every other file) from a CHARX archive. */
export async function readCharx(
  bytes: Uint8Array,
  file: string,
  opts: { limits?: Partial<ZipLimits>; withOthers?: boolean } = {},
): Promise<CharxContents> {
  const limits = { ...DEFAULT_ZIP_LIMITS, ...opts.limits };
  const zip = await zipjs();
  const reader = new zip.ZipReader(new zip.Uint8ArrayReader(bytes), { checkCrc32: true });
  let entries: ZipEntry[];
  try {
    entries = await reader.getEntries();
  } catch (err) {
    // zip.js refuses escaping names itself and says which (its `filename` property).
    const name = (err as { filename?: unknown }).filename;
    if (err instanceof Error && err.message === zip.ERR_UNSAFE_FILENAME && typeof name === "string") {
      throw badFile(file, `ZIP entry name "${name}" is unsafe (absolute, or escapes with ..)`, err);
    }
    throw badFile(file, `not a readable ZIP archive (${describeError(err)})`, err);
  }
  if (entries.length > limits.maxEntries) {
    throw new LoreError(
      "too_large",
      `${file}: ZIP has ${entries.length} entries, over the limit ${limits.maxEntries}`,
    );
  }
  for (const entry of entries) {
    if (unsafeEntryName(entry.filename)) {
      throw badFile(file, `ZIP entry name "${entry.filename}" is unsafe (absolute, or escapes with ..)`);
    }
    if (entry.encrypted)
      throw badFile(file, `ZIP entry "${entry.filename}" is encrypted (spec 5.4 forbids it)`);
  }
  const card = entries.find((e) => e.filename === "card.json" && !e.directory);
  if (!card) throw badFile(file, "CHARX has no card.json at its root");
  const cardBytes = await readBounded(zip, card, limits.maxEntryBytes, file);
  let cardJson: string;
  try {
    cardJson = new TextDecoder("utf-8", { fatal: true }).decode(cardBytes);
  } catch (err) {
    throw badFile(file, "card.json is not UTF-8 text", err);
  }
  const others: CharxContents["others"] = [];
  if (opts.withOthers) {
    let total = cardBytes.length;
    for (const entry of entries) {
      if (entry === card || entry.directory) continue;
      const data = await readBounded(
        zip,
        entry,
        Math.min(limits.maxEntryBytes, limits.maxTotalBytes - total),
        file,
      );
      total += data.length;
      others.push({ name: entry.filename, data });
    }
  }
  await reader.close();
  return { cardJson, others };
}

/**
 * Inflates one entry into memory, stopping as soon as it passes the cap or the size the archive
 * declared for it: a bomb is refused after reading at most `cap` bytes, a liar after its lie.
 */
async function readBounded(zip: ZipJs, entry: ZipEntry, cap: number, file: string): Promise<Uint8Array> {
  if (entry.directory) throw badFile(file, `ZIP entry "${entry.filename}" is a directory`);
  const name = entry.filename;
  if (entry.uncompressedSize > cap) {
    throw new LoreError(
      "too_large",
      `${file}: ZIP entry "${name}" inflates to ${entry.uncompressedSize} bytes, over the limit ${cap}`,
    );
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  let overflow: LoreError | undefined;
  const sink = new WritableStream<Uint8Array>({
    write(chunk, controller) {
      size += chunk.length;
      if (size > entry.uncompressedSize) {
        overflow = badFile(
          file,
          `ZIP entry "${name}" inflates past the ${entry.uncompressedSize} bytes it declares`,
        );
        controller.error(overflow);
        return;
      }
      parts.push(chunk);
    },
  });
  try {
    await entry.getData(sink);
  } catch (err) {
    if (overflow) throw overflow;
    if (err instanceof LoreError) throw err;
    const message = describeError(err);
    if (message === zip.ERR_INVALID_UNCOMPRESSED_SIZE) {
      throw badFile(file, `ZIP entry "${name}" inflates to a different size than it declares`, err);
    }
    throw badFile(file, `ZIP entry "${name}" cannot be read (${message})`, err);
  }
  if (overflow) throw overflow;
  if (size !== entry.uncompressedSize) {
    throw badFile(file, `ZIP entry "${name}" holds ${size} bytes but declares ${entry.uncompressedSize}`);
  }
  return Buffer.concat(parts);
}

/** A CHARX archive: `card.json` first, then any carried-over entries. */
export async function writeCharx(
  cardJson: string,
  others: CharxContents["others"] = [],
): Promise<Uint8Array> {
  const zip = await zipjs();
  const writer = new zip.ZipWriter(new zip.Uint8ArrayWriter());
  await writer.add("card.json", new zip.TextReader(cardJson));
  for (const other of others) await writer.add(other.name, new zip.Uint8ArrayReader(other.data));
  return await writer.close();
}
