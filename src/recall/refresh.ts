/**
 * Bringing a vault's index and matcher snapshot up to date in one go: what `lorecards refresh` does,
 * run by a long-running server in a process of its own (source.ts `refresher`) so that folder scans
 * and snapshot rebuilds never share a thread with requests, and by people after bulk edits made
 * outside lorecards (`--all` also catches edits written into files in place).
 */
import { loadIndex, type Vault } from "../vault/index.ts";
import { compile, REFRESH_OVERLAY_MAX } from "./_compiled.ts";

export interface RefreshReport {
  /** Card files in the index (broken ones included). */
  files: number;
  /** Files parsed because they changed. */
  parsed: number;
  /** The index version the snapshot now serves. */
  stamp: string;
  /** Compiled layers (1: the snapshot alone; 2: the snapshot and a layer of changed cards). */
  layers: number;
}

/**
 * `all`: compare every file; `touched`: compare only these vault-relative files, every change the
 * keeper's watcher saw (their folders' marks are recorded with them, vault/catalog.ts `watched`).
 */
export function refreshVault(
  vault: Vault,
  opts: { all?: boolean; touched?: string[]; progress?: (done: number, total: number) => void } = {},
): RefreshReport {
  const index = opts.touched
    ? loadIndex(vault, { check: "none", touched: opts.touched, watched: true })
    : loadIndex(vault, {
        check: opts.all ? "all" : "changed",
        ...(opts.progress && { progress: opts.progress }),
      });
  const loaded = compile(vault, index, { persist: true, overlayMax: REFRESH_OVERLAY_MAX });
  return {
    files: index.entries.size,
    parsed: index.parsed,
    stamp: index.stamp,
    layers: loaded.matcher.layers.length,
  };
}
