/**
 * What a load of the persisted index compares (catalog.ts): each folder's mtime with its recorded mark,
 * a changed folder's files with their rows, the files a watcher named, and what to parse again. Private
 * to vault/: catalog.ts writes what this finds.
 */

import fs from "node:fs";
import path from "node:path";
import { cardAt, cardMeta, kindOfFolder, parseCard, pathKeyProblem, skippedFolder } from "../card/index.ts";
import type { Card, KindDef } from "../card/types.ts";
import { describeError } from "../errors.ts";
import { gcTick } from "../gc-tick.ts";
import { type IndexDb, metaValue } from "./_index-db.ts";
import type { ParsedEntry } from "./_index-row.ts";
import { linkBelow, readNoFollow } from "./_links.ts";
import { GUIDE_FILE } from "./guide.ts";
import type { Vault } from "./paths.ts";

/** A cold process compares every file when the last full comparison is older than this. */
export const FULL_CHECK_MS = 60_000;
/**
 * Changes this recent may share their mtime with a later one. A file system whose times carry
 * sub-second digits ticks every few milliseconds; one that keeps whole seconds (FAT, HFS+) ticks
 * every one or two.
 */
export const RACY_MS = { fine: 100, coarse: 2000 };

export interface CardFile {
  rel: string;
  abs: string;
  kind: KindDef;
  key: string;
}

/**
 * A folder's card files (`*.md`, no dotfiles) and the sub-folders where cards may live: not the
 * skipped ones, not another kind's folder (walked as that kind's), never a link. Empty if it is missing.
 */
export function folderEntries(vault: Vault, dir: string): { files: string[]; folders: string[] } {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folderAbs(vault, dir), { withFileTypes: true });
  } catch {
    return { files: [], folders: [] };
  }
  const files: string[] = [];
  const folders: string[] = [];
  for (const e of entries) {
    if (e.isDirectory()) {
      const sub = dir === "" ? e.name : `${dir}/${e.name}`;
      if (skippedFolder(e.name, dir === "") === null && !isKindFolder(vault, sub)) folders.push(sub);
    } else if (e.name.endsWith(".md") && e.name.charCodeAt(0) !== 46) files.push(e.name);
  }
  return { files, folders };
}

/** A kind's own folder (the root's kind has the root). */
export function isKindFolder(vault: Vault, dir: string): boolean {
  return vault.kinds.kinds.some((k) => k.dir === dir);
}

/** The folders every load looks at: each kind's own folder. */
export function kindFolders(vault: Vault): string[] {
  return vault.kinds.kinds.map((k) => k.dir);
}

export function folderAbs(vault: Vault, dir: string): string {
  return dir === "" ? vault.root : path.join(vault.root, ...dir.split("/"));
}

export function kindsSignature(vault: Vault): string {
  return JSON.stringify(vault.kinds);
}

/**
 * A card file this process has just written, with the card its text parses as and the file's identity
 * as written (placeAll's `known`). While the file still has that inode, mtime and size (which the index
 * trusts for every file anyway), its card is taken as it is instead of reading and parsing the file.
 */
export interface KnownFile {
  ino: string;
  mtimeNs: string;
  size: number;
  card: Card;
}

/** The entry of a file known as written, if it is still the file written; undefined otherwise. */
function knownEntry(
  known: ReadonlyMap<string, KnownFile> | undefined,
  file: CardFile,
  exact: fs.BigIntStats,
): ParsedEntry | undefined {
  const k = known?.get(file.abs);
  if (k === undefined || k.ino !== `${exact.ino}` || k.mtimeNs !== `${exact.mtimeNs}`) return undefined;
  const { card } = k;
  if (k.size !== Number(exact.size) || card.path !== file.rel || card.kind !== file.kind.name)
    return undefined;
  if (card.key !== file.key || pathKeyProblem(file.key) !== null) return undefined;
  const meta = cardMeta(card);
  meta.mtime = k.mtimeNs;
  meta.size = k.size;
  const entry: ParsedEntry = { mtime: k.mtimeNs, size: k.size, meta };
  if (card.warnings.length > 0) entry.warnings = card.warnings;
  return entry;
}

export function parseEntry(vault: Vault, file: CardFile, mtime: string, size: number): ParsedEntry {
  const base = { path: file.rel, kind: file.kind.name, key: file.key };
  try {
    const problem = pathKeyProblem(file.key);
    if (problem !== null) throw new Error(`the file name is not a legal card name: ${problem}`);
    const text = readNoFollow(vault, file.abs, false);
    const card = parseCard(text, { ...base, kinds: vault.kinds, mtime, size });
    const entry: ParsedEntry = { mtime, size, meta: cardMeta(card) };
    if (card.warnings.length > 0) entry.warnings = card.warnings;
    return entry;
  } catch (err) {
    // The path is reported beside the error; do not repeat it inside the message.
    const message = describeError(err);
    const error = message.startsWith(`${file.rel}: `) ? message.slice(file.rel.length + 2) : message;
    return { mtime, size, broken: { ...base, error } };
  }
}

/** What one load found different from the rows, before it is written. */
export interface Pending {
  /** Write what is held so far (rows only: folders are marked once all their files were compared). */
  flush(): void;
  /**
   * `ms`: the mtime the plain stat gave, recorded for the next comparison, or -1 (never matching) when
   * racy, so a same-tick rewrite is parsed again next time.
   */
  put: { file: CardFile; entry: ParsedEntry; ms: number }[];
  drop: string[];
  /** Folder → the mtime to record (or "" to compare again next time). */
  dirs: Map<string, string>;
  /** Folders holding a file written after this load parsed it: compared again next time (kept across flushes). */
  moved?: Set<string>;
  /** Every folder this load compared (kept across flushes, which empty `dirs`). */
  visited: Set<string>;
  /** Called for each file a folder comparison looks at (a terminal's progress line). */
  seen?: () => void;
  /** Files just written with their cards (KnownFile), by absolute path. */
  known?: ReadonlyMap<string, KnownFile>;
}

export type Stat = fs.BigIntStats | undefined;

export const lstat = (abs: string): Stat => fs.lstatSync(abs, { bigint: true, throwIfNoEntry: false });
/** A folder's mark: its mtime, or "none" when it is missing, not a folder, or reached through a link. */
export const dirMark = (vault: Vault, abs: string): string => {
  if (linkBelow(vault, abs) !== null) return "none";
  const st = lstat(abs);
  return st?.isDirectory() ? `${st.mtimeNs}` : "none";
};
export const isRacy = (mtimeMs: number, since: number) => {
  const coarse = mtimeMs % 1000 === 0;
  return mtimeMs >= since - (coarse ? RACY_MS.coarse : RACY_MS.fine);
};

/**
 * A file whose plain stat differs from its row's, parsed; undefined when it went away in between (its
 * folder's mtime moved, so the folder is compared again next time). Folder scans use the plain stat, a
 * third quicker than the exact one; the row keeps the exact mtime (ns), read here for the files that
 * changed.
 */
export function changed(
  vault: Vault,
  file: CardFile,
  plain: fs.Stats,
  started: number,
  known?: ReadonlyMap<string, KnownFile>,
): Pending["put"][number] | undefined {
  const exact = lstat(file.abs);
  if (exact === undefined || !exact.isFile()) return undefined;
  const entry =
    knownEntry(known, file, exact) ?? parseEntry(vault, file, `${exact.mtimeNs}`, Number(exact.size));
  return { file, entry, ms: isRacy(plain.mtimeMs, started) ? -1 : plain.mtimeMs };
}

/** Each kind folder's recorded mark. */
export function knownMarks(idx: IndexDb): Map<string, string> {
  return new Map(idx.q.dirs.all().map((d) => [d.dir, d.mtime]));
}

/** True when the last comparison of every file is older than FULL_CHECK_MS. */
export function fullCheckDue(idx: IndexDb, now: number): boolean {
  return now - Number(metaValue(idx, "checked") ?? 0) > FULL_CHECK_MS;
}

/** A folder being compared: its kind (none for a folder that is gone), where its files are, and their paths' prefix. */
interface Folder {
  dir: string;
  kind: KindDef | undefined;
  /** The folder's absolute path with a separator at the end. */
  abs: string;
  prefix: string;
  /** A file in it was changed too recently to trust its stat (isRacy): compared again next time. */
  racy: boolean;
}

function folderOf(vault: Vault, dir: string): Folder {
  const abs = folderAbs(vault, dir) + path.sep;
  return { dir, kind: kindOfFolder(vault.kinds, dir), abs, prefix: dir === "" ? "" : `${dir}/`, racy: false };
}

/** A folder's rows as [path, ms, size]. */
function statsIn(idx: IndexDb, dir: string): [string, number, number][] {
  return idx.q.statsIn.values(dir) as [string, number, number][];
}

/** The file `name` of `folder`, whose stat differs from its row's (or that has none), parsed and held. */
function putChanged(vault: Vault, folder: Folder, name: string, st: fs.Stats, started: number, out: Pending) {
  const rel = folder.prefix + name;
  const kind = folder.kind!;
  const key = (kind.dir === "" ? rel : rel.slice(kind.dir.length + 1)).slice(0, -3);
  const put = changed(vault, { rel, abs: folder.abs + name, kind, key }, st, started, out.known);
  if (put === undefined) return;
  folder.racy ||= put.ms === -1;
  out.put.push(put);
  if (out.put.length >= BATCH) out.flush();
}

/** The folder's mark as compared, or "" (compared again next time) when it or a file in it is too recent to trust. */
function markCompared(folder: Folder, mark: string, started: number, out: Pending) {
  const dirStat = mark === "none" ? undefined : lstat(folder.abs);
  const racy = folder.racy || (dirStat !== undefined && isRacy(Number(dirStat.mtimeNs) / 1e6, started));
  out.dirs.set(folder.dir, racy ? "" : mark);
  out.visited.add(folder.dir);
}

/**
 * Compare one folder's files with their rows: what to parse again, what is gone. Its sub-folders the
 * index has never seen are walked the same way (a folder created or moved in with its files); those it
 * knows are compared on their own marks. A folder that is gone (`mark` "none") drops its rows.
 */
export function compareDir(
  vault: Vault,
  idx: IndexDb,
  dir: string,
  mark: string,
  started: number,
  out: Pending,
  known: ReadonlyMap<string, string>,
) {
  const folder = folderOf(vault, dir);
  const rows = statsIn(idx, dir);
  // The rows by file name (each row's path is its folder's prefix and a name): the listing's names
  // are looked up as they are, not joined to the folder first.
  const at = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) at.set(rows[i]![0].slice(folder.prefix.length), i);
  const seen = new Uint8Array(rows.length);
  const { files, folders } =
    mark === "none" || folder.kind === undefined ? { files: [], folders: [] } : folderEntries(vault, dir);
  // One plain lstat per file of a folder that changed (lstat: a card file that is a link is skipped).
  for (const name of files) {
    // The guide lives in the vault root but is no card: it opens a boot block and never fires (guide.ts).
    if (folder.prefix === "" && name === GUIDE_FILE) continue;
    out.seen?.();
    tick();
    const st = fs.lstatSync(folder.abs + name, NO_THROW);
    if (st === undefined || !st.isFile()) continue; // gone since the listing, a folder named *.md, a link
    const i = at.get(name);
    if (i !== undefined) {
      seen[i] = 1;
      const row = rows[i]!;
      if (row[1] === st.mtimeMs && row[2] === st.size) continue;
    }
    putChanged(vault, folder, name, st, started, out);
  }
  for (let i = 0; i < rows.length; i++) if (seen[i] === 0) out.drop.push(rows[i]![0]);
  markCompared(folder, mark, started, out);
  for (const sub of folders) {
    if (known.has(sub) || out.visited.has(sub)) continue;
    compareDir(vault, idx, sub, dirMark(vault, folderAbs(vault, sub)), started, out, known);
  }
}

/**
 * Compare a folder's files with their rows without listing it, when its mark is the one they were
 * last compared at: nothing was created, removed or renamed in it since (each moves the folder's
 * mtime, and a change too recent to tell left the mark "" instead), so its rows name its card files
 * and its known sub-folders are compared on their own. Each file is stat'ed all the same: an edit
 * written in place moves only the file's own mtime.
 */
export function compareRows(
  vault: Vault,
  idx: IndexDb,
  dir: string,
  mark: string,
  started: number,
  out: Pending,
): void {
  const folder = folderOf(vault, dir);
  for (const [rel, ms, size] of statsIn(idx, dir)) {
    out.seen?.();
    tick();
    const name = rel.slice(folder.prefix.length);
    // A row whose file is gone or is no file now goes, as a listing would tell; so do the rows of a
    // folder no kind owns (compareDir lists nothing there).
    const st = folder.kind === undefined ? undefined : fs.lstatSync(folder.abs + name, NO_THROW);
    if (st === undefined || !st.isFile()) out.drop.push(rel);
    else if (ms !== st.mtimeMs || size !== st.size) putChanged(vault, folder, name, st, started, out);
  }
  markCompared(folder, mark, started, out);
}

/** One options object for every stat of a folder's files, not one made per file. */
const NO_THROW = { throwIfNoEntry: false } as const;

/** A folder of 40,000 files leaves as many stat results behind (gc-tick.ts). */
const tick = gcTick();

/** Parsed files held before they are written: a fresh 100k-card vault is not held in memory at once. */
export const BATCH = 2000;

/** Compare named files with their rows, whatever their folders show. */
export function compareFiles(
  vault: Vault,
  idx: IndexDb,
  rels: readonly string[],
  started: number,
  out: Pending,
) {
  for (const rel of new Set(rels)) {
    const at = cardAt(vault.kinds, rel);
    if (at === undefined || (rel === GUIDE_FILE && at.kind.dir === "")) continue;
    const abs = folderAbs(vault, rel);
    const st = linkBelow(vault, abs) === null ? fs.lstatSync(abs, { throwIfNoEntry: false }) : undefined;
    const old = idx.q.stat.get(rel);
    if (st === undefined || !st.isFile()) {
      if (old) out.drop.push(rel);
      continue;
    }
    if (old && old.ms === st.mtimeMs && old.size === st.size) continue;
    const put = changed(vault, { rel, abs, kind: at.kind, key: at.key }, st, started, out.known);
    if (put) out.put.push(put);
    else if (old) out.drop.push(rel);
  }
}

/** The folders a load compares first: every folder the index knows, and each kind's own. */
export function foldersToCheck(vault: Vault, known: ReadonlyMap<string, string>): string[] {
  return [...new Set([...kindFolders(vault), ...known.keys()])];
}
