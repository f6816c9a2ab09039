/**
 * Group commit. Beginning and committing a transaction is the larger part of what a state write
 * costs (locking, writing the pages it touched to the WAL, now and then a checkpoint), so writes made
 * during one turn of the event loop are queued and committed together in one transaction on the next
 * (`setImmediate`): a busy gateway pays one commit for all the requests in flight, not one each. A write's promise settles only once its transaction is committed, so a caller that waits for
 * it before answering (the gateway before forwarding) answers with its write as durable as if it had
 * been committed alone.
 *
 * Writes run in the order they were queued, each reading what those before it wrote, so the writes of
 * one conversation keep their order. A write that throws is taken out and the batch runs again
 * without it: its caller gets the error, the others are not held responsible for it. A failure of the
 * transaction itself (the lock, the commit, the file) rejects every write in the batch. `flush()` runs
 * the queue at once, for a read that must see a queued write and for a store being closed.
 */

interface Queued<C> {
  /** What reads look for: the conversation the write is about. */
  key: string;
  run: (ctx: C) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Runs `body` in one transaction, committed when `body` returns, rolled back when it throws (for the
 * hit log: collects the lines, then appends them in one write).
 */
export type Transact<C> = (body: (ctx: C) => void) => void;

export class WriteQueue<C> {
  private queued: Queued<C>[] = [];

  constructor(private readonly transact: Transact<C>) {}

  /** Queues `run`; resolves with its result once the transaction it ran in is committed. */
  add<T>(key: string, run: (ctx: C) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.queued.length === 0) setImmediate(() => this.flush());
      this.queued.push({ key, run, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** Whether a write about `key` waits in the queue. */
  has(key: string): boolean {
    return this.queued.some((q) => q.key === key);
  }

  get size(): number {
    return this.queued.length;
  }

  /** Commits what is queued now; each write's promise settles with its outcome. Never throws. */
  flush(): void {
    const batch = this.queued;
    this.queued = [];
    while (batch.length > 0) {
      const results: unknown[] = [];
      // Which write was running when the transaction failed; -1 outside the writes (begin, commit).
      let at = -1;
      try {
        this.transact((ctx) => {
          results.length = 0;
          for (at = 0; at < batch.length; at++) results.push(batch[at]!.run(ctx));
          at = -1;
        });
      } catch (err) {
        if (at === -1) {
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
