/**
 * Writes for a server backend (a `concurrent` driver): a lane per conversation, many lanes at once
 * over the driver's connections. A lane is a group-commit queue of its own (`_write-queue.ts`): the
 * writes of one conversation made in one turn of the event loop (a gateway's commit and its turn
 * record) share one transaction and one lock, and those made while it runs go together in the next,
 * so they keep their order; writes of other conversations never wait for them. A lane that empties is
 * let go, so an idle gateway holds none.
 */

import { type Transact, WriteQueue } from "./_write-queue.ts";

export class WriteLanes<C> {
  private readonly lanes = new Map<string, WriteQueue<C>>();

  constructor(
    private readonly transact: (key: string) => Transact<C>,
    private readonly lost?: (err: unknown) => boolean,
  ) {}

  /** Queues `run` in the lane of `key`; resolves with its result once its transaction is committed. */
  add<T>(key: string, run: (ctx: C) => T | Promise<T>): Promise<T> {
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = new WriteQueue<C>(this.transact(key), this.lost);
      this.lanes.set(key, lane);
    }
    const queue = lane;
    const result = queue.add(key, run);
    const settle = () => {
      if (!queue.busy && this.lanes.get(key) === queue) this.lanes.delete(key);
    };
    result.then(settle, settle);
    return result;
  }

  /** Whether a write about `key` waits or is being committed. */
  has(key: string): boolean {
    return this.lanes.get(key)?.busy ?? false;
  }

  get busy(): boolean {
    for (const lane of this.lanes.values()) if (lane.busy) return true;
    return false;
  }

  /** Settles once every lane has committed what it holds now. Never rejects. */
  async flush(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => lane.flush()));
  }
}
