/**
 * Word segmentation on a thread of its own, for a process that serves requests. jieba's first cut
 * builds its dictionary, about 200 ms of CPU (350 ms in all with its module), and in the thread that
 * serves requests every request in flight waited for it; its ~60 MB of WebAssembly memory also
 * counted in that thread's heap, which the collector lets grow in proportion. Here the thread loads
 * jieba on the first text that needs it, the requests go on meanwhile, and once no text has come for
 * IDLE_MS the thread ends and its memory goes back to the system (a later text starts it again).
 *
 * A thread that cannot start or dies is said once on stderr, and the cuts go on in this thread
 * (segment.ts), as a process that is not a server does them: the words are jieba's either way.
 */
import { pathToFileURL } from "node:url";
import { isEmbedded } from "../embedded.ts";
import { LoreError, warnOnStderr } from "../errors.ts";
import { jiebaSegmenter, type Segmenter } from "./segment.ts";

/** How long the thread may go without a text before it ends. */
const IDLE_MS = 10 * 60_000;

/**
 * The thread's module. From source it sits beside this file; in the compiled binary it is an entry
 * point of its own (build.ts THREADS), named from src/ (the folder the entry points share) in the
 * embedded file system, whose path never falls back to a file of the working directory.
 */
function threadModule(): string {
  if (!isEmbedded(Bun.main)) return new URL("./_segment-worker.ts", import.meta.url).href;
  return new URL("./match/_segment-worker.ts", pathToFileURL(Bun.main)).href;
}

/** A cut made in this thread, as a process that is not a server makes it. */
function cutHere(text: string): Promise<string[]> {
  return jiebaSegmenter().then((s) => s.cut(text));
}

interface Asked {
  text: string;
  resolve: (words: string[]) => void;
  reject: (err: unknown) => void;
}

type Answer = { id: number; words: string[] } | { id: number; error: string };

export interface ThreadOptions {
  /** Where a thread that failed is said. */
  warn: (line: string) => void;
  /** The thread's module (a test gives one that fails). */
  module?: string;
  /** How long the thread may go without a text before it ends. */
  idleMs?: number;
}

export class SegmentThread implements Segmenter {
  private worker: Worker | undefined;
  private readonly asked = new Map<number, Asked>();
  private next = 0;
  private idle: ReturnType<typeof setTimeout> | undefined;
  /** The thread failed once: every cut is made in this thread from then on. */
  private failed = false;

  constructor(private readonly options: ThreadOptions) {}

  /** Whether the thread is up (it is started by a text and ends when idle). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  cut(text: string): Promise<string[]> {
    if (this.failed) return cutHere(text);
    clearTimeout(this.idle);
    this.idle = undefined;
    const worker = this.started();
    const id = this.next++;
    return new Promise<string[]>((resolve, reject) => {
      this.asked.set(id, { text, resolve, reject });
      worker?.postMessage({ id, text });
    });
  }

  private started(): Worker | undefined {
    if (this.worker !== undefined) return this.worker;
    try {
      const worker = new Worker(this.options.module ?? threadModule());
      // A worker keeps its process alive; this one must not keep a server that is done from exiting.
      (worker as Worker & { unref(): void }).unref();
      worker.onmessage = (event: MessageEvent<Answer>) => this.answered(event.data);
      worker.onerror = (event: ErrorEvent) => this.fail(event.message);
      this.worker = worker;
      return worker;
    } catch (err) {
      // Answered once the promise of the cut that asked exists (the `asked` entry is set after this).
      queueMicrotask(() => this.fail(String(err)));
      return undefined;
    }
  }

  private answered(answer: Answer): void {
    const asked = this.asked.get(answer.id);
    if (asked === undefined) return;
    this.asked.delete(answer.id);
    if ("words" in answer) asked.resolve(answer.words);
    else asked.reject(new LoreError("internal", answer.error));
    if (this.asked.size === 0) {
      this.idle = setTimeout(() => this.end(), this.options.idleMs ?? IDLE_MS);
      this.idle.unref?.();
    }
  }

  /** The thread is let go when idle; the next text starts another. */
  private end(): void {
    if (this.asked.size === 0) this.stop();
  }

  /** Ends the thread now (what it was asked and has not answered is never answered). */
  stop(): void {
    clearTimeout(this.idle);
    this.idle = undefined;
    this.worker?.terminate();
    this.worker = undefined;
  }

  /** The thread failed: said once, and what it was asked is cut here, as everything from now on. */
  private fail(why: string): void {
    if (this.failed) return;
    this.failed = true;
    this.options.warn(`lorecards: word segmentation went back to the serving thread: ${why}`);
    this.stop();
    const asked = [...this.asked.values()];
    this.asked.clear();
    for (const a of asked) cutHere(a.text).then(a.resolve, a.reject);
  }
}

let thread: SegmentThread | undefined;

/**
 * The process's segmentation thread, as a segmenter loader (the engines of a process share it, and
 * what it cut is remembered under it, _cuts.ts). Nothing starts until a text needs cutting.
 */
export function threadSegmenter(): Promise<Segmenter> {
  thread ??= new SegmentThread({ warn: warnOnStderr });
  return Promise.resolve(thread);
}
