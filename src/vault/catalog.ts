/**
 * The persisted index (docs/ARCHITECTURE.md, "A cold process must not re-read the vault"): CardMeta
 * per file in `<vault>/.lorecards/index.db` (vault/_index-db.ts), with the mtime (ns) and size each row
 * was parsed at. Cards live in the kind folders and in every folder below them, at any depth
 * (card/ `cardAt`: `people/family/Rin.md` is a people card), skipping the folders card/ `skippedFolder`
 * names. What a load checks, so that its cost follows what changed, not the vault's size:
 * - each folder's mtime. Creating, deleting or renaming a file or a sub-folder changes it, and so does
 *   every atomic save (a temp file renamed over the card: ours, and most editors'). Only a folder whose
 *   mtime moved has its files stat'ed and compared with the rows (and its new sub-folders walked); only
 *   files whose mtime or size moved are parsed again;
 * - every file, when the last such full check is older than FULL_CHECK_MS, or when asked (`full`,
 *   `lorecards check --reindex`): the only way to notice an edit written into the file in place,
 *   which leaves its folder's mtime alone (README "When an edit is seen").
 * A folder or file touched within RACY_MS of the check is not recorded as seen: a change in the same
 * clock tick would keep its mtime, so it is compared again next time.
 */

import fs from "node:fs";
import path from "node:path";
import { cardAt, cardMeta, kindOfFolder, parseCard, pathKeyProblem, skippedFolder } from "../card/index.ts";
import type { BrokenCard, CardMeta, KindDef } from "../card/types.ts";
import { describeError } from "../errors.ts";
import { type IndexDb, metaValue, openIndexDb, STATUS } from "./_index-db.ts";
import { encodeRow, type ParsedEntry } from "./_index-row.ts";
import { IndexRows } from "./_index-rows.ts";
import { linkBelow, readNoFollow } from "./_links.ts";
import { settleImports } from "./_settle.ts";
import { removeStaleTemps } from "./_temps.ts";
import { GUIDE_FILE } from "./guide.ts";
import { STAT_ALL_MAX, syncWithKeeper } from "./keeper.ts";
import { STATE_DIR, type Vault } from "./paths.ts";

export { indexPath } from "./_index-db.ts";

/** A cold process compares every file when the last full comparison is older than this. */
export const FULL_CHECK_MS = 60_000;
/**
 * Changes this recent may share their mtime with a later one. A file system whose times carry
 * sub-second digits ticks every few milliseconds; one that keeps whole seconds (FAT, HFS+) ticks
 * every one or two.
 */
const RACY_MS = { fine: 100, coarse: 2000 };

/** What changed between two versions of the index. */
export interface IndexChanges {
  /** Paths whose row was written (created, edited, or broken) after the older version. */
  changed: string[];
  /** Paths removed after the older version. */
  gone: string[];
}

export interface VaultIndex {
  /** Every parsed card (enabled or not): kinds in table order, then file names in code-unit order. */
  cards: CardMeta[];
  /** Files that could not be parsed, with the error. */
  broken: BrokenCard[];
  /** Cards that parsed with frontmatter values falling back to defaults. */
  warnings: { path: string; warnings: string[] }[];
  /** Names this version of the index: changes whenever any card file (or the kind table) changes. */
  stamp: string;
  /** How many files this load had to parse (0 on a warm, unchanged vault). */
  parsed: number;
  /** The rows, by relative path, decoded on demand. */
  entries: IndexRows;
  /**
   * What changed after the version `stamp` named, or undefined when this index cannot tell (another
   * epoch: the file was rebuilt; or removals that old were forgotten).
   */
  changesSince(stamp: string): IndexChanges | undefined;
  /** Forget removals up to the version `stamp` names: nothing older than it will be asked about. */
  forgetUpTo(stamp: string): void;
  /** @internal the connection, reused by the next load given this one as `previous`. */
  readonly db: IndexDb;
  /** "missing": an `inPlace` load of a large vault found no keeper answering; start one. */
  keeper?: "missing";
}

export interface LoadIndexOptions {
  /** A previous result of the same vault: its connection is reused. */
  previous?: VaultIndex;
  /** Write index.db (default true). False: changes are kept in an in-memory copy only. */
  persist?: boolean;
  /**
   * How much of the vault is compared with the rows: "changed" (the default) the folders whose mtime
   * moved, and every file once the last full check is older than FULL_CHECK_MS; "all" every file;
   * "none" nothing (a server whose refresher has just brought the rows up to date).
   */
  check?: "changed" | "all" | "none";
  /** Vault-relative paths compared whatever their folder shows (the files a watcher named). */
  touched?: readonly string[];
  /**
   * See an edit written into a file in place (a cold process: the hook, `try`): with "changed", a
   * vault of up to STAT_ALL_MAX card files has every file compared; a larger one asks its keeper to
   * catch up first (keeper.ts), and compares every file itself when there is none.
   */
  inPlace?: boolean;
}

interface CardFile {
  rel: string;
  abs: string;
  kind: KindDef;
  key: string;
}

/**
 * A folder's card files (`*.md`, no dotfiles) and the sub-folders where cards may live: not the
 * skipped ones, not another kind's folder (walked as that kind's), never a link. Empty if it is missing.
 */
function folderEntries(vault: Vault, dir: string): { files: string[]; folders: string[] } {
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
      if (skippedFolder(e.name) === null && !isKindFolder(vault, sub)) folders.push(sub);
    } else if (e.name.endsWith(".md") && e.name.charCodeAt(0) !== 46) files.push(e.name);
  }
  return { files, folders };
}

/** A kind's own folder (the root's kind has the root). */
function isKindFolder(vault: Vault, dir: string): boolean {
  return vault.kinds.kinds.some((k) => k.dir === dir);
}

/** The folders every load looks at: each kind's own folder. */
function kindFolders(vault: Vault): string[] {
  return vault.kinds.kinds.map((k) => k.dir);
}

function folderAbs(vault: Vault, dir: string): string {
  return dir === "" ? vault.root : path.join(vault.root, ...dir.split("/"));
}

function kindsSignature(vault: Vault): string {
  return JSON.stringify(vault.kinds);
}

function parseEntry(vault: Vault, file: CardFile, mtime: string, size: number): ParsedEntry {
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
interface Pending {
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
  /** Every folder this load compared (kept across flushes, which empty `dirs`). */
  visited: Set<string>;
}

type Stat = fs.BigIntStats | undefined;

const lstat = (abs: string): Stat => fs.lstatSync(abs, { bigint: true, throwIfNoEntry: false });
/** A folder's mark: its mtime, or "none" when it is missing, not a folder, or reached through a link. */
const dirMark = (vault: Vault, abs: string): string => {
  if (linkBelow(vault, abs) !== null) return "none";
  const st = lstat(abs);
  return st?.isDirectory() ? `${st.mtimeNs}` : "none";
};
const isRacy = (mtimeMs: number, since: number) => {
  const coarse = mtimeMs % 1000 === 0;
  return mtimeMs >= since - (coarse ? RACY_MS.coarse : RACY_MS.fine);
};

/**
 * A file whose plain stat differs from its row's, parsed; undefined when it went away in between (its
 * folder's mtime moved, so the folder is compared again next time). Folder scans use the plain stat, a
 * third quicker than the exact one; the row keeps the exact mtime (ns), read here for the files that
 * changed.
 */
function changed(
  vault: Vault,
  file: CardFile,
  plain: fs.Stats,
  started: number,
): Pending["put"][number] | undefined {
  const exact = lstat(file.abs);
  if (exact === undefined || !exact.isFile()) return undefined;
  const entry = parseEntry(vault, file, `${exact.mtimeNs}`, Number(exact.size));
  return { file, entry, ms: isRacy(plain.mtimeMs, started) ? -1 : plain.mtimeMs };
}

/** Each kind folder's recorded mark. */
function knownMarks(idx: IndexDb): Map<string, string> {
  return new Map(idx.q.dirs.all().map((d) => [d.dir, d.mtime]));
}

/** True when the last comparison of every file is older than FULL_CHECK_MS. */
function fullCheckDue(idx: IndexDb, now: number): boolean {
  return now - Number(metaValue(idx, "checked") ?? 0) > FULL_CHECK_MS;
}

/**
 * Compare one folder's files with their rows: what to parse again, what is gone. Its sub-folders the
 * index has never seen are walked the same way (a folder created or moved in with its files); those it
 * knows are compared on their own marks. A folder that is gone (`mark` "none") drops its rows.
 */
function compareDir(
  vault: Vault,
  idx: IndexDb,
  dir: string,
  mark: string,
  started: number,
  out: Pending,
  known: ReadonlyMap<string, string>,
) {
  const kind = kindOfFolder(vault.kinds, dir);
  const rows = idx.q.statsIn.values(dir) as [string, number, number][];
  const at = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) at.set(rows[i]![0], i);
  const seen = new Uint8Array(rows.length);
  const abs = folderAbs(vault, dir) + path.sep;
  const prefix = dir === "" ? "" : `${dir}/`;
  const { files, folders } =
    mark === "none" || kind === undefined ? { files: [], folders: [] } : folderEntries(vault, dir);
  let racy = false;
  // One plain lstat per file of a folder that changed (lstat: a card file that is a link is skipped).
  for (const name of files) {
    // The guide lives in the vault root but is no card: it opens a boot block and never fires (guide.ts).
    if (prefix === "" && name === GUIDE_FILE) continue;
    const st = fs.lstatSync(abs + name, { throwIfNoEntry: false });
    if (st === undefined || !st.isFile()) continue; // gone since the listing, a folder named *.md, a link
    const rel = prefix + name;
    const i = at.get(rel);
    if (i !== undefined) {
      seen[i] = 1;
      const row = rows[i]!;
      if (row[1] === st.mtimeMs && row[2] === st.size) continue;
    }
    const key = (kind!.dir === "" ? rel : rel.slice(kind!.dir.length + 1)).slice(0, -3);
    const put = changed(vault, { rel, abs: abs + name, kind: kind!, key }, st, started);
    if (put === undefined) continue;
    racy ||= put.ms === -1;
    out.put.push(put);
    if (out.put.length >= BATCH) out.flush();
  }
  for (let i = 0; i < rows.length; i++) if (seen[i] === 0) out.drop.push(rows[i]![0]);
  const dirStat = mark === "none" ? undefined : lstat(abs);
  out.dirs.set(
    dir,
    racy || (dirStat !== undefined && isRacy(Number(dirStat.mtimeNs) / 1e6, started)) ? "" : mark,
  );
  out.visited.add(dir);
  for (const sub of folders) {
    if (known.has(sub) || out.visited.has(sub)) continue;
    compareDir(vault, idx, sub, dirMark(vault, folderAbs(vault, sub)), started, out, known);
  }
}

/** Parsed files held before they are written: a fresh 100k-card vault is not held in memory at once. */
const BATCH = 2000;

/**
 * Write what a load found, in one transaction that other processes wait for. A folder's mark is
 * recorded only if its mtime is still the one seen before its files were compared: when something
 * moved meanwhile (another writer), the folder is compared again next time, so a row written from an
 * older view of a file is corrected by the next load, never trusted.
 */
function commit(vault: Vault, idx: IndexDb, pending: Pending, full: number | undefined): void {
  const { q } = idx;
  let rewritten = 0;
  idx.db
    .transaction(() => {
      const gen = Number(metaValue(idx, "gen") ?? 0) + 1;
      for (const { file, entry, ms } of pending.put) {
        const row = JSON.stringify(encodeRow(file.rel, entry));
        // The same row parsed again (a file checked twice in its racy window): no new version.
        if (q.row.get(file.rel)?.row === row) q.restat.run(ms, entry.size, file.rel);
        else {
          q.put.run(file.rel, dirOf(file.rel), file.kind.dir, ms, entry.size, row, gen, statusOf(entry));
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
        else q.setDir.run(dir, dirMark(vault, folderAbs(vault, dir)) === mark ? mark : "");
      }
      if (full !== undefined) q.setMeta.run("checked", String(full));
    })
    .immediate();
  pending.put = [];
  pending.drop = [];
  pending.dirs.clear();
}

function statusOf(entry: ParsedEntry): number {
  if (!entry.meta) return STATUS.broken;
  return entry.meta.enabled ? STATUS.enabled : STATUS.disabled;
}

/** Compare named files with their rows, whatever their folders show. */
function compareFiles(vault: Vault, idx: IndexDb, rels: readonly string[], started: number, out: Pending) {
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
    const put = changed(vault, { rel, abs, kind: at.kind, key: at.key }, st, started);
    if (put) out.put.push(put);
    else if (old) out.drop.push(rel);
  }
}

/** The folders a load compares first: every folder the index knows, and each kind's own. */
function foldersToCheck(vault: Vault, known: ReadonlyMap<string, string>): string[] {
  return [...new Set([...kindFolders(vault), ...known.keys()])];
}

/** True when a full check is due or some folder's mtime is not the one its rows were checked at. */
export function indexStale(vault: Vault, index: VaultIndex): boolean {
  const idx = index.db;
  if (fullCheckDue(idx, Date.now())) return true;
  const known = knownMarks(idx);
  return foldersToCheck(vault, known).some((dir) => {
    const mark = known.get(dir);
    return mark === undefined || mark === "" || mark !== dirMark(vault, folderAbs(vault, dir));
  });
}

/** Load every card's metadata, re-parsing only what changed since the last load. */
export function loadIndex(vault: Vault, opts: LoadIndexOptions = {}): VaultIndex {
  settleImports(vault); // never a half-imported book (_settle.ts)
  const kinds = kindsSignature(vault);
  const reuse = opts.previous?.db;
  const idx =
    reuse && metaValue(reuse, "kinds") === kinds ? reuse : openIndexDb(vault, kinds, opts.persist !== false);
  const started = Date.now();
  const check = opts.check ?? "changed";
  const full = check === "all" || (check === "changed" && fullCheckDue(idx, started));
  // Edits written in place: a small vault compares every file; a large one asks its keeper (keeper.ts).
  let keeper: VaultIndex["keeper"];
  let everyFile = full;
  if (!full && check === "changed" && opts.inPlace) {
    if ((idx.q.count.get()?.n ?? 0) <= STAT_ALL_MAX) everyFile = true;
    else if (!syncWithKeeper(vault)) {
      everyFile = true;
      keeper = "missing";
    }
  }
  const known = knownMarks(idx);
  let parsed = 0;
  let wrote = false;
  const pending: Pending = {
    put: [],
    drop: [],
    dirs: new Map(),
    visited: new Set(),
    flush() {
      parsed += pending.put.length;
      wrote = true;
      commit(vault, idx, pending, undefined);
    },
  };
  // Comparing every file walks every folder from the kinds' own, as if the index knew none of them.
  const walkFrom = everyFile ? new Map<string, string>() : known;
  for (const dir of check === "none" ? [] : foldersToCheck(vault, known)) {
    if (pending.visited.has(dir)) continue; // walked already, as a new sub-folder of another
    const mark = dirMark(vault, folderAbs(vault, dir));
    if (!everyFile && known.get(dir) === mark && mark !== "") continue;
    compareDir(vault, idx, dir, mark, started, pending, walkFrom);
  }
  const touched = (opts.touched ?? []).filter((rel) => !pending.visited.has(dirOf(rel)));
  compareFiles(vault, idx, touched, started, pending);
  parsed += pending.put.length;
  const changed = pending.put.length + pending.drop.length > 0;
  const marksMoved = [...pending.dirs].some(([dir, mark]) => known.get(dir) !== mark);
  if (changed || marksMoved || full || wrote) {
    commit(vault, idx, pending, full ? started : undefined);
    // What a killed write of ours (the matcher snapshot's temp file) left in the state folder.
    if (idx.onDisk) removeStaleTemps(path.join(vault.root, STATE_DIR));
  }
  return summarize(idx, vault, parsed, keeper);
}

/** The folder part of a vault-relative path ("" for the vault root). */
function dirOf(rel: string): string {
  const slash = rel.lastIndexOf("/");
  return slash === -1 ? "" : rel.slice(0, slash);
}

/**
 * Run one of lorecards' own writes to the card file `abs` (create, edit, archive, restore) and tell the
 * index at once: the file is compared, and when the index had seen the card's folder exactly as it was
 * before the write, the folder's new mtime is recorded too, so the next process finds the change
 * without looking inside the folder. (A change someone else makes to that folder within the same
 * clock tick as ours is left to the next full check; README "When an edit is seen".) The index is a
 * cache: when telling it fails, the next load compares the folder as usual.
 */
export function recordOwnWrite<T>(vault: Vault, abs: string, write: () => T): T {
  const rel = path.relative(vault.root, abs).split(path.sep).join("/");
  const folder = dirOf(rel);
  const owned = cardAt(vault.kinds, rel) !== undefined;
  const before = owned ? dirMark(vault, folderAbs(vault, folder)) : undefined;
  const result = write();
  if (before === undefined) return result;
  try {
    const idx = openIndexDb(vault, kindsSignature(vault), true);
    try {
      if (!idx.onDisk) return result;
      const pending: Pending = { put: [], drop: [], dirs: new Map(), visited: new Set(), flush: () => {} };
      compareFiles(vault, idx, [rel], Date.now(), pending);
      const seen = knownMarks(idx).get(folder);
      if (seen === before && before !== "")
        pending.dirs.set(folder, dirMark(vault, folderAbs(vault, folder)));
      commit(vault, idx, pending, undefined);
    } finally {
      idx.db.close();
    }
  } catch {
    // the next load compares the folder
  }
  return result;
}

/** The stamp of the index as it is now: its epoch and generation. */
function stampOf(idx: IndexDb): string {
  return `${metaValue(idx, "epoch")}.${metaValue(idx, "gen")}`;
}

/** The generation a stamp of this index's epoch names, or undefined for another epoch. */
function genOf(idx: IndexDb, stamp: string): number | undefined {
  const dot = stamp.lastIndexOf(".");
  if (dot === -1 || stamp.slice(0, dot) !== metaValue(idx, "epoch")) return undefined;
  const gen = Number(stamp.slice(dot + 1));
  return Number.isInteger(gen) ? gen : undefined;
}

/**
 * The lists are built on first access: a caller that looks up a few entries by path (the hook, the
 * gateway) never walks every row.
 */
function summarize(idx: IndexDb, vault: Vault, parsed: number, keeper?: "missing"): VaultIndex {
  const entries = new IndexRows(idx, vault.kinds);
  let cards: CardMeta[] | undefined;
  let broken: BrokenCard[] | undefined;
  let warnings: VaultIndex["warnings"] | undefined;
  return {
    get cards() {
      cards ??= entries.paths().flatMap((rel) => entries.meta(rel) ?? []);
      return cards;
    },
    get broken() {
      broken ??= entries.brokenPaths().flatMap((rel) => entries.broken(rel) ?? []);
      return broken;
    },
    get warnings() {
      warnings ??= entries.paths().flatMap((rel) => {
        const w = entries.warnings(rel);
        return w ? [{ path: rel, warnings: w }] : [];
      });
      return warnings;
    },
    stamp: stampOf(idx),
    parsed,
    entries,
    db: idx,
    ...(keeper && { keeper }),
    changesSince(stamp) {
      const gen = genOf(idx, stamp);
      if (gen === undefined || gen < Number(metaValue(idx, "pruned") ?? 0)) return undefined;
      const changed = idx.q.changedSince.all(gen).map((r) => r.path);
      const gone = idx.q.goneSince.all(gen).map((r) => r.path);
      return { changed, gone };
    },
    forgetUpTo(stamp) {
      const gen = genOf(idx, stamp);
      if (gen === undefined || gen <= Number(metaValue(idx, "pruned") ?? 0)) return;
      idx.db.transaction(() => {
        idx.q.pruneGone.run(gen);
        idx.q.setMeta.run("pruned", String(gen));
      })();
    },
  };
}
