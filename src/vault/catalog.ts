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
 * What a load compares is _compare.ts. A folder or file touched within RACY_MS of the check is not
 * recorded as seen: a change in the same clock tick would keep its mtime, so it is compared again next
 * time.
 */

import path from "node:path";
import { cardAt } from "../card/index.ts";
import type { BrokenCard, CardMeta } from "../card/types.ts";
import { gcTick } from "../gc-tick.ts";
import {
  compareDir,
  compareFiles,
  compareRows,
  dirMark,
  FULL_CHECK_MS,
  folderAbs,
  foldersToCheck,
  fullCheckDue,
  type KnownFile,
  kindsSignature,
  knownMarks,
  lstat,
  type Pending,
} from "./_compare.ts";
import { commit, dirOf } from "./_index-commit.ts";
import { type IndexDb, metaValue, openIndexDb } from "./_index-db.ts";
import { IndexRows } from "./_index-rows.ts";
import { settleImports } from "./_settle.ts";
import { removeStaleTemps } from "./_temps.ts";
import { STAT_ALL_MAX, syncWithKeeper } from "./keeper.ts";
import { STATE_DIR, type Vault } from "./paths.ts";

export { indexPath } from "./_index-db.ts";
export { FULL_CHECK_MS };

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
  /** Card files this process has just written, with their cards (placeAll's `known`): not parsed again. */
  known?: ReadonlyMap<string, KnownFile>;
  /**
   * The `touched` paths are every change a watcher saw since the index was last compared in full (the
   * keeper's): their folders' marks are recorded too, so the next load does not list them.
   */
  watched?: boolean;
  /** Told how many card files were compared so far, of about how many (the index's count). */
  progress?: (done: number, total: number) => void;
  /**
   * See an edit written into a file in place (a cold process: the hook, `try`): with "changed", a
   * vault of up to STAT_ALL_MAX card files has every file compared; a larger one asks its keeper to
   * catch up first (keeper.ts), and compares every file itself when there is none.
   */
  inPlace?: boolean;
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
  let due = check === "changed" && fullCheckDue(idx, started);
  // Edits written in place: a small vault compares every file; a large one asks its keeper (keeper.ts).
  let keeper: VaultIndex["keeper"];
  let everyFile = due || check === "all";
  // Counted once, when first asked (a small vault's cold load asks twice).
  let cards: number | undefined;
  const large = () => {
    cards ??= idx.q.count.get()?.n ?? 0;
    return cards > STAT_ALL_MAX;
  };
  if (check === "changed" && opts.inPlace && large()) {
    // A keeper that answered has written every change its watcher saw, which is every change since its
    // own full check: the periodic full check would find nothing it has not (keeper.ts).
    if (syncWithKeeper(vault)) everyFile = due = false;
    else {
      everyFile = true;
      keeper = "missing";
    }
  } else if (check === "changed" && opts.inPlace) everyFile = true;
  const full = check === "all" || due;
  const known = knownMarks(idx);
  let parsed = 0;
  let wrote = false;
  // A batch of parsed files is written at a time (BATCH); the garbage of parsing it goes with it.
  const tick = gcTick(1);
  const pending: Pending = {
    put: [],
    drop: [],
    dirs: new Map(),
    visited: new Set(),
    known: opts.known,
    flush() {
      parsed += pending.put.length;
      wrote = true;
      commit(vault, idx, pending, undefined);
      tick();
    },
  };
  if (opts.progress) {
    const { progress } = opts;
    const total = idx.q.count.get()?.n ?? 0;
    let done = 0;
    pending.seen = () => progress(++done, Math.max(done, total));
  }
  // Comparing every file walks every folder from the kinds' own, as if the index knew none of them.
  const walkFrom = everyFile ? new Map<string, string>() : known;
  for (const dir of check === "none" ? [] : foldersToCheck(vault, known)) {
    if (pending.visited.has(dir)) continue; // walked already, as a new sub-folder of another
    const mark = dirMark(vault, folderAbs(vault, dir));
    const unmoved = known.get(dir) === mark && mark !== "";
    if (!everyFile && unmoved) continue;
    // Looking for edits written in place, a folder whose names did not change need not be listed.
    if (unmoved && mark !== "none" && opts.inPlace && check === "changed")
      compareRows(vault, idx, dir, mark, started, pending);
    else compareDir(vault, idx, dir, mark, started, pending, walkFrom);
  }
  // What comparing every file of a large vault left (a folder's rows, names and stats at a time) is
  // garbage by now, some 45 MB at 100k cards: collected before the matcher and recall add theirs, the
  // process peaks near 85 MB instead of 115 MB, for a few milliseconds of a pass that takes hundreds.
  if (everyFile && large()) Bun.gc(true);
  const touched = (opts.touched ?? []).filter((rel) => !pending.visited.has(dirOf(rel)));
  const marks = opts.watched ? watchedMarks(vault, touched, known) : undefined;
  compareFiles(vault, idx, touched, started, pending);
  for (const [dir, mark] of marks ?? []) pending.dirs.set(dir, mark);
  parsed += pending.put.length;
  const changed = pending.put.length + pending.drop.length > 0;
  const marksMoved = [...pending.dirs].some(([dir, mark]) => known.get(dir) !== mark);
  if (changed || marksMoved || full || wrote) {
    commit(vault, idx, pending, full ? started : undefined);
    // What a killed write of ours (the matcher snapshot's temp file) left in the state folder.
    if (idx.onDisk) removeStaleTemps(path.join(vault.root, STATE_DIR));
  }
  // A vault that was small to the index before this load (a first prompt indexing it from nothing, a
  // large import since) and is large now: its keeper starts now, not on the prompt after, which would
  // compare every file once more itself.
  const wasSmall = check === "changed" && opts.inPlace && cards !== undefined && cards <= STAT_ALL_MAX;
  if (wasSmall && (idx.q.count.get()?.n ?? 0) > STAT_ALL_MAX) keeper = "missing";
  const index = summarize(idx, vault, parsed, keeper);
  // A server's next version: the rows the last one decoded stay, but for the ones changed since.
  const last = opts.previous;
  const changes = last?.db === idx ? index.changesSince(last.stamp) : undefined;
  if (last && changes) index.entries.adopt(last.entries, [...changes.changed, ...changes.gone]);
  return index;
}

/**
 * The marks of the known folders holding `touched` files, read before those files are compared: with
 * every change in them named by a watcher (`watched`), comparing the named files is comparing the
 * folder, and the next load need not list it (an atomic save in a folder of 40,000 cards would have
 * every one stat'ed). A folder where something named is now a folder or a link (moved in with what it
 * holds, which no watcher names one by one) keeps its old mark and is walked as usual.
 */
function watchedMarks(vault: Vault, touched: readonly string[], known: ReadonlyMap<string, string>) {
  const dirs = new Set<string>();
  const walk = new Set<string>();
  for (const rel of touched) {
    const dir = dirOf(rel);
    if (!known.has(dir)) continue;
    dirs.add(dir);
    const st = lstat(folderAbs(vault, rel));
    if (st !== undefined && !st.isFile()) walk.add(dir);
  }
  const marks = new Map<string, string>();
  for (const dir of dirs) {
    const mark = walk.has(dir) ? "none" : dirMark(vault, folderAbs(vault, dir));
    if (mark !== "none") marks.set(dir, mark);
  }
  return marks;
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
