/**
 * A running server's watcher of a vault's card files. It watches the root folder alone and each
 * folder below it that can hold cards (recursively), never `.lorecards/`, `_archive/` or a hidden
 * folder: the state files change on every request (each page a commit writes to state.db's WAL is an
 * event the kernel queues and the runtime hands to JavaScript), and none of them is a card. A folder
 * made in the root later is watched from the moment the root's watcher names it.
 */
import { type FSWatcher, readdirSync, statSync, watch } from "node:fs";
import { join } from "node:path";
import { skippedFolder } from "../card/index.ts";

export interface VaultWatcher {
  close(): void;
}

/** Watch `root`'s card folders; `changed` gets each named file's vault-relative path (`/`-separated). */
export function watchCards(root: string, changed: (rel: string) => void): VaultWatcher | undefined {
  const folders = new Map<string, FSWatcher>();
  const follow = (name: string): void => {
    if (folders.has(name) || skippedFolder(name) !== null || !isFolder(join(root, name))) return;
    try {
      const w = watch(join(root, name), { recursive: true }, (_event, file) => {
        if (typeof file !== "string" || file === "") return;
        const parts = file.split(/[\\/]/);
        // A folder skipped further down (a book's own state folder, a hidden one) holds no card either.
        if (parts.slice(0, -1).some((p) => skippedFolder(p) !== null)) return;
        changed(`${name}/${parts.join("/")}`);
      });
      // A folder deleted or moved away: its watcher ends; a folder of that name is followed anew.
      w.on("error", () => forget(name));
      w.unref();
      folders.set(name, w);
    } catch {
      // gone already, or not readable: the periodic folder check still sees it
    }
  };
  const forget = (name: string): void => {
    folders.get(name)?.close();
    folders.delete(name);
  };
  let top: FSWatcher;
  try {
    top = watch(root, (_event, name) => {
      if (typeof name !== "string" || name === "" || skippedFolder(name) !== null) return;
      if (isFolder(join(root, name))) follow(name);
      else forget(name);
      changed(name);
    });
    top.unref();
  } catch {
    return undefined; // no watcher: the periodic folder check still catches changes
  }
  try {
    for (const entry of readdirSync(root, { withFileTypes: true }))
      if (entry.isDirectory()) follow(entry.name);
  } catch {
    // the root went away: its watcher reports what comes back
  }
  return {
    close() {
      top.close();
      for (const w of folders.values()) w.close();
      folders.clear();
    },
  };
}

function isFolder(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isDirectory() === true;
}
