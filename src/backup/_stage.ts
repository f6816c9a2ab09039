/**
 * Writing a backup's files, each checked as it is read and fsynced, into a staging folder inside the
 * target's `.lorecards/` (same file system, so the swap that follows is renames only, and a folder the
 * lorecards service may write to: a systemd unit's ReadWritePaths is the vault, not its parent). The
 * swap itself is vault/swap.ts's: journaled, so a killed restore is finished by the next command.
 *
 * The files go to the vault's writer threads (vault/_stage-writers.ts) a chunk at a time while the
 * archive is still being read, and no file is held once written, so a restore's memory does not grow
 * with the backup; reading waits while too many chunks are in flight. They are made durable all at
 * once when the last is written (vault/_sync-fs.ts), or each by its writer where that cannot be done.
 *
 * A file gets the mode lorecards gives such a file, never the one a manifest names (a forged one can
 * say 0777, or make the marker secret readable by all): cards and settings 0644 (less what the umask
 * takes), lorecards' own state (the databases, the marker secret, the hit log) 0600. It gets back its
 * modification time.
 */
import fs from "node:fs";
import path from "node:path";
import { fsyncDir, STATE_DIR, type StagedFile, syncsAtOnce, syncWritten, Writers } from "../vault/index.ts";
import type { ManifestFile } from "./_manifest.ts";

const abs = (root: string, rel: string) => path.join(root, ...rel.split("/"));

/** The mode lorecards gives the file at vault path `rel`. */
export function modeFor(rel: string, umask = process.umask()): number {
  if (rel.startsWith(`${STATE_DIR}/`)) return 0o600;
  return 0o644 & ~umask;
}

/**
 * Threads writing, at most; a small backup gets one per MIN_CHUNK files. Each thread is a few MB of
 * memory: at 100k cards eight of them took the restore's peak past 300 MB (four: about 250).
 */
const WRITERS = 4;
/** Files sent to a writer at once, or fewer when they pass CHUNK_BYTES. */
const CHUNK = 128;
const MIN_CHUNK = 64;
const CHUNK_BYTES = 1024 ** 2;
/** Chunks sent and not yet written, at most, before reading waits: a few per writer. */
const IN_FLIGHT = 3 * WRITERS;

/** Stages the files of one backup under `dir` (which must not exist yet): `add` each, then `finish`. */
export class Stager {
  private readonly made = new Set<string>();
  private readonly writers: Writers;
  private readonly umask = process.umask();
  /** Written plain, then made durable at once (vault/_sync-fs.ts); else each fsynced by its writer. */
  private readonly atOnce = syncsAtOnce();
  private chunk: StagedFile[] = [];
  private chunkBytes = 0;
  private readonly inFlight: Promise<void>[] = [];
  private done = 0;
  private failed: unknown;
  private readonly size: number;

  constructor(
    private readonly dir: string,
    private readonly total: number,
    private readonly progress?: (done: number, total: number) => void,
  ) {
    this.size = Math.max(MIN_CHUNK, Math.min(CHUNK, Math.ceil(total / WRITERS)));
    this.writers = new Writers(Math.max(1, Math.min(WRITERS, Math.ceil(total / this.size))), !this.atOnce);
  }

  /** Stage one file (`bytes` in a buffer of its own); resolves once reading may go on. */
  async add(f: ManifestFile, bytes: Uint8Array): Promise<void> {
    if (this.failed !== undefined) throw this.failed;
    // The manifest read just before the first file (20 MB at 100k cards, held as bytes, as text and
    // parsed twice) is garbage now: one full collection returns it before the files' garbage piles on.
    if (this.made.size === 0) Bun.gc(true);
    const file = abs(this.dir, f.path);
    const parent = path.dirname(file);
    if (!this.made.has(parent)) {
      fs.mkdirSync(parent, { recursive: true });
      this.made.add(parent);
    }
    this.chunk.push([file, bytes, modeFor(f.path, this.umask), f.mtime]);
    this.chunkBytes += bytes.length;
    if (this.chunk.length >= this.size || this.chunkBytes >= CHUNK_BYTES) this.send();
    while (this.inFlight.length > IN_FLIGHT) await this.inFlight.shift();
    if (this.failed !== undefined) throw this.failed;
  }

  /** Every file written and fsynced, then each folder made; throws the first failure. */
  async finish(): Promise<void> {
    this.send();
    await this.settle();
    if (this.failed !== undefined) throw this.failed;
    if (this.atOnce) syncWritten(this.dir);
    for (const d of this.made) fsyncDir(d);
  }

  /** Waits until no writer is writing (so the folder can be removed), and ends the threads. */
  async settle(): Promise<void> {
    await Promise.all(this.inFlight.splice(0));
    this.writers.close();
  }

  private send(): void {
    if (this.chunk.length === 0) return;
    const chunk = this.chunk;
    this.chunk = [];
    this.chunkBytes = 0;
    this.inFlight.push(
      this.writers.write(chunk).then(
        (stats) => {
          this.done += stats.length;
          this.progress?.(this.done, this.total);
        },
        (err: unknown) => {
          this.failed ??= err;
        },
      ),
    );
  }
}
