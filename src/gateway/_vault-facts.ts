/**
 * What a running gateway knows of its vault folder between requests: that the folder is there, the
 * guide's text, and that the marker secret's file is the one it read. Each chat request asked the
 * disk for all three (a stat of the folder, one of `guide.md`, one of the secret's file); a watching
 * gateway now asks a watcher instead, and looks again only when the watcher named the file (or the
 * folder itself: renamed, deleted), when it failed, or once a second has gone by since the last look:
 * a folder above the vault renamed or swapped sends the vault's own watcher nothing, and a kernel
 * that drops events must not leave a stale answer standing for long. Without watching (tests, cold
 * processes) or without a watcher (none could be started), every request looks, as before.
 */
import path from "node:path";
import type { KindsConfig } from "../card/types.ts";
import { GUIDE_FILE, readGuide } from "../vault/index.ts";
import { folderId } from "../vault/root.ts";
import { type Watched, watched } from "../watched-path.ts";

export interface VaultFacts {
  /** Whether the vault folder is there (a stat only when the watcher cannot say). */
  present(): boolean;
  /** The guide's public text for `kinds` (README "The boot block"), read again only after a change. */
  guide(kinds: KindsConfig): string;
  /**
   * Whether the marker secret read from `file` at the last `secretRead` may have changed since: true
   * when it must be asked for again.
   */
  secretChanged(file: string): boolean;
  secretRead(file: string): void;
  close(): void;
}

/** The facts of `root`; with `watch` false every question looks at the disk. */
export function vaultFacts(root: string, options: { watch: boolean; now?: () => number }): VaultFacts {
  const now = options.now ?? performance.now.bind(performance);
  const base = path.basename(root);
  let guide: { kinds: KindsConfig; text: string } | undefined;
  let folder: { present: boolean; id?: string } = { present: false };
  // The folder's own events (its name) mean it moved or went: its watch is let go and made anew on the
  // next look that finds a folder there. The guide's events and the folder's own drop the guide.
  const rootWatch = watched(root, options.watch, (name) => {
    if (name === GUIDE_FILE) guide = undefined;
    return name === base || name === null;
  });
  let secret: { file: string; watch: Watched } | undefined;

  const look = (at: number): boolean => {
    // Another folder in its place (a folder above swapped): the watch is of the old one.
    const id = folderId(root);
    const there = id !== undefined;
    if (id !== folder.id) rootWatch.close();
    folder = { present: there, id };
    // A look stands for the guide too: it is read again after each.
    guide = undefined;
    rootWatch.seen(at, there);
    return there;
  };

  return {
    present() {
      const at = now();
      return rootWatch.fresh(at) ? folder.present : look(at);
    },
    guide(kinds) {
      if (!options.watch || !rootWatch.fresh(now())) return readGuide(root, kinds);
      if (guide?.kinds !== kinds) guide = { kinds, text: readGuide(root, kinds) };
      return guide.text;
    },
    secretChanged(file) {
      return secret?.file !== file || !secret.watch.fresh(now());
    },
    secretRead(file) {
      if (secret?.file !== file) {
        secret?.watch.close();
        secret = { file, watch: watched(file, options.watch, () => true) };
      }
      secret.watch.seen(now(), true);
    },
    close() {
      rootWatch.close();
      secret?.watch.close();
      secret = undefined;
    },
  };
}
