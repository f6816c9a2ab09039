/**
 * A tar stream read entry by entry (POSIX ustar, with pax `path`/`size` records and GNU long names),
 * for a backup read back without trust: each entry's header is shown to the caller before a byte of
 * its content is inflated, so an entry the caller refuses (too large, not listed, not a plain file)
 * costs nothing, and content the caller keeps comes in pieces it hashes as they arrive. Reading stops
 * at the end-of-archive blocks: whatever a bomb puts after them is never inflated.
 * https://pubs.opengroup.org/onlinepubs/9699919799/utilities/pax.html#tag_20_92_13_06
 */

export interface TarEntry {
  name: string;
  /** `file`, `directory`, or what else it is, in words (`a symbolic link`, `a FIFO`, …). */
  kind: string;
  size: number;
}

/**
 * What the caller does with an entry's content; none for an entry without content. Reading waits for
 * the promise `end` may return (a reader that writes what it reads keeps pace with its writers).
 */
export interface TarSink {
  data(bytes: Uint8Array): void;
  end(): void | Promise<void>;
}

const BLOCK = 512;
const KINDS: Record<string, string> = {
  "0": "file",
  "\0": "file",
  "7": "file",
  "5": "directory",
  "1": "a hard link",
  "2": "a symbolic link",
  "3": "a character device",
  "4": "a block device",
  "6": "a FIFO",
};

/** Bytes of a stream, taken as they are needed. */
class Bytes {
  private chunks: Uint8Array[] = [];
  private length = 0;
  constructor(private readonly source: AsyncIterator<Uint8Array>) {}

  /** Whether `n` bytes are there (false: the stream ended first). */
  async fill(n: number): Promise<boolean> {
    while (this.length < n) {
      const next = await this.source.next();
      if (next.done) return false;
      this.chunks.push(next.value);
      this.length += next.value.length;
    }
    return true;
  }

  /** Up to `n` bytes (at least one when any are buffered), without copying more than one chunk. */
  takeUpTo(n: number): Uint8Array {
    const first = this.chunks[0]!;
    if (first.length <= n) {
      this.chunks.shift();
      this.length -= first.length;
      return first;
    }
    this.chunks[0] = first.subarray(n);
    this.length -= n;
    return first.subarray(0, n);
  }

  take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let at = 0; at < n; ) {
      const part = this.takeUpTo(n - at);
      out.set(part, at);
      at += part.length;
    }
    return out;
  }
}

const text = (b: Uint8Array) => new TextDecoder("utf-8").decode(b).replace(/\0[\s\S]*$/, "");

/** An octal number field, or a base-256 one (high bit set) as GNU tar writes large sizes. */
function numberField(b: Uint8Array): number {
  if (b[0]! & 0x80) {
    let n = b[0]! & 0x7f;
    for (let i = 1; i < b.length; i++) n = n * 256 + b[i]!;
    return n;
  }
  const s = text(b).trim();
  return s === "" ? 0 : Number.parseInt(s, 8);
}

function checksumHolds(h: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return sum === numberField(h.subarray(148, 156));
}

/** The `key=value` records of a pax extended header; each record's length counts bytes, not characters. */
function paxRecords(body: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  const utf8 = new TextDecoder("utf-8");
  for (let at = 0; at < body.length; ) {
    const space = body.indexOf(0x20, at);
    const length = space === -1 ? Number.NaN : Number(utf8.decode(body.subarray(at, space)));
    if (!Number.isInteger(length) || length <= 0 || at + length > body.length) break;
    const record = utf8.decode(body.subarray(space + 1, at + length - 1));
    const eq = record.indexOf("=");
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return out;
}

export class TarError extends Error {}

/**
 * Reads `source` to its end-of-archive blocks, showing each entry to `visit`, which throws to refuse
 * it or returns where its content goes. Metadata entries (pax, GNU long names) are read here, and
 * capped: they are never larger than a few kilobytes.
 */
export async function readTar(
  source: AsyncIterable<Uint8Array>,
  visit: (entry: TarEntry) => TarSink | null,
): Promise<void> {
  const bytes = new Bytes(source[Symbol.asyncIterator]());
  let next: { path?: string; size?: number } = {};
  for (;;) {
    if (!(await bytes.fill(BLOCK))) throw new TarError("it ends inside the tar, before its end");
    const h = bytes.take(BLOCK);
    if (h.every((b) => b === 0)) return; // the end of the archive; what follows is never read
    if (!checksumHolds(h)) throw new TarError("a tar header's checksum does not match");
    const type = String.fromCharCode(h[156]!);
    const prefix = text(h.subarray(345, 500));
    const base = text(h.subarray(0, 100));
    const size = next.size ?? numberField(h.subarray(124, 136));
    const name = next.path ?? (prefix ? `${prefix}/${base}` : base);
    const padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (type === "x" || type === "g" || type === "L") {
      if (size > 64 * 1024) throw new TarError(`a tar metadata entry of ${size} bytes`);
      if (!(await bytes.fill(size + padding))) throw new TarError("it ends inside a tar entry");
      const body = bytes.take(size);
      bytes.take(padding);
      if (type === "x") {
        const records = paxRecords(body);
        next = {
          ...(records.has("path") && { path: records.get("path") }),
          ...(records.has("size") && { size: Number(records.get("size")) }),
        };
      } else if (type === "L") next = { path: text(body) };
      continue;
    }
    next = {};
    const sink = visit({ name, kind: KINDS[type] ?? `an entry of tar type ${JSON.stringify(type)}`, size });
    for (let left = size; left > 0; ) {
      if (!(await bytes.fill(1))) throw new TarError("it ends inside a tar entry");
      const part = bytes.takeUpTo(left);
      sink?.data(part);
      left -= part.length;
    }
    await sink?.end();
    if (!(await bytes.fill(padding))) throw new TarError("it ends inside a tar entry");
    bytes.take(padding);
  }
}
