/**
 * The write half of an index load (vault/catalog.ts): what a comparison found goes into index.db in one
 * transaction, each row with the case-folded names refs are resolved by, and only while its file is
 * still the one that was parsed.
 */

import { fold } from "../match/index.ts";
import { dirMark, folderAbs, isKindFolder, lstat, type Pending } from "./_compare.ts";
import { type IndexDb, metaValue, STATUS } from "./_index-db.ts";
import { encodeRow, type ParsedEntry } from "./_index-row.ts";
import type { Vault } from "./paths.ts";

/**
 * Write what a load found, in one transaction that other processes wait for. A folder's mark is
 * recorded only if its mtime is still the one seen before its files were compared: when something
 * moved meanwhile (another writer), the folder is compared again next time, so a row written from an
 * older view of a file is corrected by the next load, never trusted.
 */
export function commit(vault: Vault, idx: IndexDb, pending: Pending, full: number | undefined): void {
  const { q } = idx;
  let rewritten = 0;
  pending.moved ??= new Set();
  const moved = pending.moved;
  idx.db
    .transaction(() => {
      const gen = Number(metaValue(idx, "gen") ?? 0) + 1;
      for (const { file, entry, ms } of pending.put) {
        // Written since it was parsed (in place, during a long full check): another process may have
        // recorded the newer text already, and the older must never replace it. The folder is compared
        // again next time, which settles the row whoever wrote last.
        if (!asParsed(file.abs, entry)) {
          moved.add(dirOf(file.rel));
          continue;
        }
        const row = JSON.stringify(encodeRow(file.rel, entry));
        // The same row parsed again (a file checked twice in its racy window): no new version.
        if (q.row.get(file.rel)?.row === row) q.restat.run(ms, entry.size, file.rel);
        else {
          const names = foldedNames(entry);
          q.put.run(
            file.rel,
            dirOf(file.rel),
            file.kind.dir,
            ms,
            entry.size,
            row,
            gen,
            statusOf(entry),
            ...names,
          );
          q.unbury.run(file.rel);
          rewritten++;
        }
      }
      for (const rel of pending.drop) {
        q.drop.run(rel);
        q.bury.run(rel, gen);
        rewritten++;
      }
      if (rewritten > 0) q.setMeta.run("gen", String(gen));
      for (const [dir, mark] of pending.dirs) {
        // A sub-folder that is gone is forgotten; a kind's own folder is remembered as missing.
        if (mark === "none" && !isKindFolder(vault, dir)) q.dropDir.run(dir);
        else if (!moved.has(dir))
          q.setDir.run(dir, dirMark(vault, folderAbs(vault, dir)) === mark ? mark : "");
      }
      for (const dir of moved) q.setDir.run(dir, "");
      if (full !== undefined) q.setMeta.run("checked", String(full));
    })
    .immediate();
  pending.put = [];
  pending.drop = [];
  pending.dirs.clear();
}

/** Whether the file is still the one parsed: same exact mtime and size (compared under the write lock). */
function asParsed(abs: string, entry: ParsedEntry): boolean {
  const st = lstat(abs);
  return st?.isFile() === true && `${st.mtimeNs}` === entry.mtime && Number(st.size) === entry.size;
}

/** A card's key and title case-folded, as vault/lookup.ts compares names (none for a broken file). */
function foldedNames(entry: ParsedEntry): [string | null, string | null] {
  const meta = entry.meta;
  return meta ? [fold(meta.key.trim()), fold(meta.title.trim())] : [null, null];
}

function statusOf(entry: ParsedEntry): number {
  if (!entry.meta) return STATUS.broken;
  return entry.meta.enabled ? STATUS.enabled : STATUS.disabled;
}

/** The folder part of a vault-relative path ("" for the vault root). */
export function dirOf(rel: string): string {
  const slash = rel.lastIndexOf("/");
  return slash === -1 ? "" : rel.slice(0, slash);
}
