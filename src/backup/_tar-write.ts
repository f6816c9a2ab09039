/**
 * A `.tar.gz` written a piece at a time: headers and contents are laid into one megabyte buffer,
 * handed to a gzip stream whenever it fills, and the compressed bytes go to the file as they come.
 * What is held is that buffer and the compressor's window, not the archive: `Bun.Archive` built the
 * whole archive in memory beside its input, and a 100,000-card vault's backup peaked near 440 MB (a
 * forced restore, which first backs up what it replaces, near 545 MB). The buffer is filled again
 * only once the compressor has taken it (each write to a zlib stream is a job on another thread, so one
 * per header and card, four for each of 100,000 cards, took ten times as long as the whole backup).
 * The format is POSIX ustar, with a pax extended header holding the `path` of an entry whose name is
 * longer than ustar's 100 bytes or not plain ASCII (a card named in Chinese), as tar(1) and `_tar.ts`
 * read it.
 * https://pubs.opengroup.org/onlinepubs/9699919799/utilities/pax.html#tag_20_92_13_06
 */
import fs from "node:fs";
import { createGzip, type Gzip } from "node:zlib";

/**
 * An entry: its contents as bytes, or as pieces of text written in UTF-8 one window at a time (a
 * large manifest, never one string or one buffer). `text` is gone through twice, first for the size
 * the header gives, so it must give the same pieces each time.
 */
export type TarInput = {
  name: string;
  /** Permission bits (default 0o600). */
  mode?: number;
  /** Modification time in milliseconds (default 0). */
  mtime?: number;
} & ({ bytes: Uint8Array } | { text: () => Iterable<string> });

const BLOCK = 512;
const PIECE = 1024 * 1024;
const encoder = new TextEncoder();

/** Writes `entries` as a gzip-compressed tar to the open file `fd`; resolves to the bytes written. */
export async function writeTarGz(fd: number, entries: Iterable<TarInput>): Promise<number> {
  const tar = new TarPieces(fd);
  try {
    for (const entry of entries) await tar.entry(entry);
    return await tar.end();
  } catch (err) {
    tar.abandon(); // an entry that could not be read: nothing more may reach `fd`, which the caller closes
    throw err;
  }
}

class TarPieces {
  private readonly gzip: Gzip = createGzip();
  private readonly piece = new Uint8Array(PIECE);
  private used = 0;
  private written = 0;

  constructor(fd: number) {
    this.gzip.on("data", (chunk: Buffer) => {
      fs.writeSync(fd, chunk);
      this.written += chunk.length;
    });
  }

  /** An entry: a pax header when its name needs one, its ustar header, its content, padding. */
  async entry(e: TarInput): Promise<void> {
    const plain = e.name.length <= 100 && /^[\x20-\x7e]*$/.test(e.name);
    const mtime = Math.max(0, Math.floor((e.mtime ?? 0) / 1000));
    if (!plain) {
      const record = paxRecord("path", e.name);
      await this.header(paxName(e.name), record.length, 0o600, mtime, "x");
      await this.content(record);
    }
    const size = "bytes" in e ? e.bytes.length : utf8Length(e.text());
    await this.header(plain ? e.name : asciiName(e.name), size, e.mode ?? 0o600, mtime, "0");
    if ("bytes" in e) await this.content(e.bytes);
    else await this.text(e.text(), size);
  }

  abandon(): void {
    this.gzip.removeAllListeners("data");
    this.gzip.destroy();
  }

  /** The end-of-archive blocks, the rest compressed; the archive's size. */
  async end(): Promise<number> {
    await this.zeros(2 * BLOCK);
    await this.flush();
    const ended = new Promise<void>((resolve, reject) => {
      this.gzip.once("end", resolve);
      this.gzip.once("error", reject);
    });
    this.gzip.end();
    await ended;
    return this.written;
  }

  /** One ustar header block, laid straight into the buffer. */
  private async header(name: string, size: number, mode: number, mtime: number, type: string) {
    await this.room(BLOCK);
    const h = this.piece.subarray(this.used, this.used + BLOCK);
    h.fill(0);
    encoder.encodeInto(name, h.subarray(0, 100));
    octal(h, 100, 8, mode & 0o7777);
    octal(h, 108, 8, 0); // uid
    octal(h, 116, 8, 0); // gid
    octal(h, 124, 12, size);
    octal(h, 136, 12, mtime);
    h[156] = type.charCodeAt(0);
    encoder.encodeInto("ustar\u000000", h.subarray(257, 265));
    // The checksum is the sum of the header's bytes with its own field read as spaces.
    h.fill(0x20, 148, 156);
    let sum = 0;
    for (const b of h) sum += b;
    encoder.encodeInto(`${sum.toString(8).padStart(6, "0")}\u0000 `, h.subarray(148, 156));
    this.used += BLOCK;
  }

  /** Content, then zeros to the end of its last block. */
  private async content(bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.length; ) {
      await this.room(1);
      const n = Math.min(bytes.length - at, PIECE - this.used);
      this.piece.set(bytes.subarray(at, at + n), this.used);
      this.used += n;
      at += n;
    }
    await this.zeros((BLOCK - (bytes.length % BLOCK)) % BLOCK);
  }

  /** Text as UTF-8 straight into the buffer, a window of it at a time; then zeros, as `content`. */
  private async text(pieces: Iterable<string>, size: number): Promise<void> {
    let written = 0;
    for (const text of pieces)
      for (let at = 0; at < text.length; ) {
        await this.room(4); // room for any one character
        // As many UTF-16 units as there are bytes free: each takes at least a byte, so the window is
        // never short, and one cut between the halves of a pair never gets written (the half alone
        // would need three bytes, past the end of the buffer): it starts the next window whole.
        const end = Math.min(text.length, at + (PIECE - this.used));
        const done = encoder.encodeInto(text.slice(at, end), this.piece.subarray(this.used));
        this.used += done.written;
        written += done.written;
        at += done.read;
      }
    if (written !== size) throw new Error(`the text of a tar entry came to ${written} bytes, not ${size}`);
    await this.zeros((BLOCK - (size % BLOCK)) % BLOCK);
  }

  private async zeros(n: number): Promise<void> {
    for (let left = n; left > 0; ) {
      await this.room(1);
      const k = Math.min(left, PIECE - this.used);
      this.piece.fill(0, this.used, this.used + k);
      this.used += k;
      left -= k;
    }
  }

  /** At least `n` bytes free in the buffer (n ≤ BLOCK), handing it to the compressor first if not. */
  private async room(n: number): Promise<void> {
    if (PIECE - this.used < n) await this.flush();
  }

  /** The buffer to the compressor; resolves once it has taken it, so the buffer may be filled again. */
  private flush(): Promise<void> {
    if (this.used === 0) return Promise.resolve();
    const full = this.piece.subarray(0, this.used);
    return new Promise((resolve, reject) =>
      this.gzip.write(full, (err) => {
        if (err) return reject(err);
        this.used = 0;
        resolve();
      }),
    );
  }
}

function utf8Length(pieces: Iterable<string>): number {
  let n = 0;
  for (const piece of pieces) n += Buffer.byteLength(piece, "utf8");
  return n;
}

/** `value` in octal, zero-padded to fill `length` bytes at `at` with a NUL at the end. */
function octal(h: Uint8Array, at: number, length: number, value: number): void {
  encoder.encodeInto(`${value.toString(8).padStart(length - 1, "0")}\u0000`, h.subarray(at, at + length));
}

/** A pax record, `"<length> <key>=<value>\n"`, its length counting its own digits, in bytes. */
function paxRecord(key: string, value: string): Uint8Array {
  const rest = encoder.encode(` ${key}=${value}\n`).length;
  let length = rest + 1;
  while (String(length).length + rest > length) length++;
  return encoder.encode(`${length} ${key}=${value}\n`);
}

/** The name of a pax header entry: ignored by readers that understand it, plain for those that do not. */
function paxName(name: string): string {
  return `PaxHeader/${asciiName(name.slice(name.lastIndexOf("/") + 1))}`.slice(0, 100);
}

/** A stand-in name in printable ASCII, at most 100 bytes, for a reader that ignores pax headers. */
function asciiName(name: string): string {
  return name.replace(/[^\x20-\x7e]/gu, "_").slice(-100);
}
