/**
 * Group commit. Beginning and committing a transaction is the larger part of what a state write
 * costs (locking, writing the pages it touched to the WAL, now and then a checkpoint; a round trip and
 * a WAL flush for a server), so writes made during one turn of the event loop are queued and committed
 * together in one transaction on the next (`setImmediate`): a busy gateway pays one commit for all the
 * requests in flight, not one each. A write's promise settles only once its transaction is committed,
 * so a caller that waits for it before answering (the gateway before it ends an answer) answers with
 * its write as durable as if it had been committed alone. A write nothing waits for (a response's
 * usage) rides with the next commit instead of starting one, or waits at most `LATER_MS`.
 *
 * One transaction at a time: writes queued while one is being committed go together in the next, so
 * a slow backend gets larger groups, never more transactions at once. Writes run in the order they
 * were queued, each reading what those before it wrote, so the writes of one conversation keep their
 * order. A write that throws is taken out and the batch runs again without it: its caller gets the
 * error, the others are not held responsible for it. A failure of the transaction itself (the lock,
 * the commit, the file), or one that says the backend is gone (`lost`), rejects every write in the
 * batch. `flush()` commits the queue at once, for a read that must see a queued write and for a store
 * being closed.
 */

interface Queued<C> {
  /** What reads look for: the conversation the write is about. */
  key: string;
  run: (ctx: C) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Runs `body` in one transaction, committed when `body` resolves, rolled back when it throws. */
export type Transact<C> = (body: (ctx: C) => Promise<void>) => Promise<void>;

/** How long a write nothing waits for may wait for company (`add` with `soon` false). */
const LATER_MS = 100;

export class WriteQueue<C> {
  private queued: Queued<C>[] = [];
  /** The batch being committed. */
  private current: Queued<C>[] = [];
  private active: Promise<void> | null = null;
  /** A flush is due on the next turn of the event loop. */
  private immediate = false;
  /** A flush is due in LATER_MS, for writes nothing waits for. */
  private later: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly transact: Transact<C>,
    /** Errors that fail the whole batch whichever write met them (the backend could not be reached). */
    private readonly lost: (err: unknown) => boolean = () => false,
  ) {}

  /**
   * Queues `run`; resolves with its result once the transaction it ran in is committed. A write that
   * nothing waits for (`soon` false: a response's usage) rides with the next commit, or is committed
   * within LATER_MS when none comes.
   */
  add<T>(key: string, run: (ctx: C) => T | Promise<T>, soon = true): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (soon && !this.immediate) {
        this.immediate = true;
        setImmediate(() => {
          this.immediate = false;
          void this.flush();
        });
      } else if (!soon && this.later === undefined) {
        this.later = setTimeout(() => {
          this.later = undefined;
          void this.flush();
        }, LATER_MS);
        this.later.unref?.();
      }
      this.queued.push({ key, run, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** Whether a write about `key` waits in the queue or is being committed. */
  has(key: string): boolean {
    return this.queued.some((q) => q.key === key) || this.current.some((q) => q.key === key);
  }

  /** Whether any write waits or is being committed. */
  get busy(): boolean {
    return this.queued.length > 0 || this.current.length > 0;
  }

  /** Commits what is queued, after the batch being committed; settles once the queue is empty. Never rejects. */
  flush(): Promise<void> {
    if (this.active) return this.active.then(() => this.flush());
    if (this.queued.length === 0) return Promise.resolve();
    const active = this.drain().finally(() => {
      this.active = null;
    });
    this.active = active;
    return active;
  }

  private async drain(): Promise<void> {
    while (this.queued.length > 0) {
      this.current = this.queued;
      this.queued = [];
      await this.commit(this.current);
      this.current = [];
    }
  }

  private async commit(batch: Queued<C>[]): Promise<void> {
    while (batch.length > 0) {
      const results: unknown[] = [];
      // Which write was running when the transaction failed; -1 outside the writes (begin, commit).
      let at = -1;
      try {
        await this.transact(async (ctx) => {
          results.length = 0;
          for (at = 0; at < batch.length; at++) results.push(await batch[at]!.run(ctx));
          at = -1;
        });
      } catch (err) {
        if (at === -1 || this.lost(err)) {
          for (const q of batch) q.reject(err);
          return;
        }
        batch.splice(at, 1)[0]!.reject(err);
        continue;
      }
      for (const [i, q] of batch.entries()) q.resolve(results[i]);
      return;
    }
  }
}
