/**
 * One path watched for changes between looks, for a long-running process that would otherwise stat
 * it per request (the gateway's vault facts, its state file): a look at the disk stands until the
 * watcher says the path changed, fails, or a second has gone by, since a folder above renamed or
 * swapped sends the path's own watcher nothing, and a kernel that drops events must not leave a stale
 * answer standing for long.
 */
import { type FSWatcher, watch } from "node:fs";

/** How long an answer stands without a look, whatever the watcher says. */
export const TRUST_MS = 1000;

/**
 * One path watched for changes: `fresh()` says whether what was seen at the last `seen()` still
 * stands. An event `own` picks (by the name the watcher gives: a folder's watcher names its entries
 * and, for the folder itself, its own name) ends that: the watch is let go too, since it follows what
 * moved or went, and the next look that finds the path there watches it anew.
 */
export interface Watched {
  fresh(now: number): boolean;
  /** Looked at the path `now`, and whether it was there (it is watched from then on if it was). */
  seen(now: number, there: boolean): void;
  close(): void;
}

export function watched(target: string, enabled: boolean, own: (name: string | null) => boolean): Watched {
  let watcher: FSWatcher | undefined;
  let lookedAt = Number.NEGATIVE_INFINITY;
  const stop = () => {
    watcher?.close();
    watcher = undefined;
  };
  const start = () => {
    try {
      const w = watch(target, (_event, name) => {
        if (w === watcher && own(typeof name === "string" ? name : null)) stop();
      });
      w.on("error", () => {
        if (w === watcher) stop();
      });
      w.unref();
      watcher = w;
    } catch {
      watcher = undefined; // gone again already, or not watchable: every request looks
    }
  };
  return {
    fresh: (now) => watcher !== undefined && now - lookedAt < TRUST_MS,
    seen(now, there) {
      if (!enabled) return;
      if (!there) return stop();
      if (watcher === undefined) start();
      lookedAt = now;
    },
    close: stop,
  };
}
