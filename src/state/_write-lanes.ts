/**
 * Writes for a server backend (a `concurrent` driver): each write is its own transaction, sent at
 * once, many in flight together over the driver's connections, each locking only the conversation it
 * is about. The writes of one key made by this process go one after another in the order they were
 * made (a lane per key), so they keep their order as the grouped queue keeps it; writes of other keys
 * never wait for them. A failed write fails alone.
 */

export class WriteLanes<C> {
  /** The last write of each key still in flight. */
  private readonly lanes = new Map<string, Promise<unknown>>();

  constructor(private readonly transact: <T>(key: string, run: (ctx: C) => Promise<T>) => Promise<T>) {}

  /** Runs `run` in a transaction of its own, after this process's earlier writes of `key`. */
  add<T>(key: string, run: (ctx: C) => T | Promise<T>): Promise<T> {
    const before = this.lanes.get(key) ?? Promise.resolve();
    const result = before.then(() => this.transact(key, async (ctx) => run(ctx)));
    const settled = result.catch(() => undefined);
    this.lanes.set(key, settled);
    void settled.then(() => {
      if (this.lanes.get(key) === settled) this.lanes.delete(key);
    });
    return result;
  }

  /** Whether a write about `key` is in flight. */
  has(key: string): boolean {
    return this.lanes.has(key);
  }

  get busy(): boolean {
    return this.lanes.size > 0;
  }

  /** Settles once every write in flight now has. Never rejects. */
  async flush(): Promise<void> {
    await Promise.all(this.lanes.values());
  }
}
