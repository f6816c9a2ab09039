/**
 * The threads an import (_batch.ts) and a restore (backup/_stage.ts) stage their files with: each
 * creates, writes and fsyncs the files it is handed. Several fsyncs in flight at once let the file
 * system commit many in one journal commit, where Bun's own pool runs only a few file operations at a
 * time, and the thread that reads or makes the files goes on meanwhile.
 */

/**
 * Worker threads that create, write and fsync files: each takes a list of StagedFile, makes each file
 * in turn (exclusive create, write, its mode and modification time when given, fsync unless the caller
 * syncs them all at once afterwards (_sync-fs.ts), close: one descriptor open at a time), and answers with each file's identity as written (inode, mtime in ns,
 * size: what the index compares) or the first error. Its code is a string, not a module, so that the
 * compiled binary needs no second entry point.
 */
const WRITER_SOURCE = `const fs = require("node:fs");
self.onmessage = (event) => {
  const stats = [];
  try {
    const { files, sync } = event.data;
    for (const [file, data, mode, mtimeMs] of files) {
      const fd = mode === undefined ? fs.openSync(file, "wx") : fs.openSync(file, "wx", mode);
      try {
        fs.writeFileSync(fd, data);
        if (mode !== undefined) fs.fchmodSync(fd, mode);
        if (mtimeMs !== undefined) fs.futimesSync(fd, mtimeMs / 1000, mtimeMs / 1000);
        if (sync) fs.fsyncSync(fd);
        const st = fs.fstatSync(fd, { bigint: true });
        stats.push([String(st.ino), String(st.mtimeNs), Number(st.size)]);
      } finally {
        fs.closeSync(fd);
      }
    }
    postMessage({ stats });
  } catch (err) {
    postMessage({ error: String(err && err.message ? err.message : err) });
  }
};`;

/**
 * A file to stage: its path, its contents (a string is written as UTF-8; bytes should have a buffer of
 * their own, since a view is sent to the thread with its whole buffer), and optionally the mode it
 * gets whatever the umask, and its modification time in ms.
 */
export type StagedFile = [path: string, data: string | Uint8Array, mode?: number, mtimeMs?: number];

let writerUrl: string | undefined;

/** A file as its writer left it: inode and mtime (ns) as decimal strings, and its size. */
export type WrittenStat = [ino: string, mtimeNs: string, size: number];

interface Writer {
  worker: Worker;
  /** The chunks sent and not yet answered, oldest first (a writer answers in order). */
  waiting: { resolve: (stats: WrittenStat[]) => void; reject: (e: Error) => void }[];
  /** Set when the thread died: it will answer nothing more. */
  dead?: Error;
}

export class Writers {
  private readonly writers: Writer[];
  private next = 0;

  /** `sync`: fsync each file; false when the caller makes them all durable at once (_sync-fs.ts). */
  constructor(
    count: number,
    private readonly sync = true,
  ) {
    writerUrl ??= URL.createObjectURL(new Blob([WRITER_SOURCE], { type: "application/javascript" }));
    const url = writerUrl;
    this.writers = Array.from({ length: count }, () => {
      const w: Writer = { worker: new Worker(url), waiting: [] };
      w.worker.onmessage = (event: MessageEvent<{ stats?: WrittenStat[]; error?: string }>) => {
        const chunk = w.waiting.shift();
        if (event.data.error !== undefined) chunk?.reject(new Error(event.data.error));
        else chunk?.resolve(event.data.stats ?? []);
      };
      w.worker.onerror = (event: ErrorEvent) => {
        w.dead = new Error(`a writer thread failed: ${event.message}`);
        for (const chunk of w.waiting.splice(0)) chunk.reject(w.dead);
      };
      return w;
    });
  }

  /** Hands a chunk to the next writer in turn; resolves with the stats of the files it wrote. */
  write(files: StagedFile[]): Promise<WrittenStat[]> {
    const w = this.writers[this.next++ % this.writers.length]!;
    if (w.dead !== undefined) return Promise.reject(w.dead);
    return new Promise((resolve, reject) => {
      w.waiting.push({ resolve, reject });
      w.worker.postMessage({ files, sync: this.sync });
    });
  }

  close(): void {
    for (const { worker } of this.writers) worker.terminate();
  }
}
