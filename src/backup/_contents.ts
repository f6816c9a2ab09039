/**
 * What a backup holds, as paths relative to the vault root (`/`-separated): the card files (every
 * `*.md` at any depth but in a hidden folder, as the vault reads its cards wherever they sit, and every
 * `*.md` under `_archive/`), `kinds.yaml`, `settings.yaml`, `style-dictionary.yaml`, and under `.lorecards/` the databases that
 * are not caches (every `*.db` but `index.db`), `marker-secret` and `hits.jsonl`. Left out: the caches
 * (`index.db`, `matcher.bin`), which any command rebuilds, the lock, temp files, an import's journal,
 * the backups themselves, and anything else a vault folder happens to hold (a `.git`, pictures).
 * Symbolic links are never followed (README "Symbolic links"), here as everywhere. Each book of
 * `books/` (docs/BOOKS.md) is backed up the same way under `books/NAME/`, with its book.yaml and the
 * character card it keeps.
 */
import fs from "node:fs";
import path from "node:path";
import { defaultKinds, KINDS_FILE, loadKindsConfig } from "../card/index.ts";
import { LoreError } from "../errors.ts";
import { STYLE_SIDE_FILES } from "../style/files.ts";
import {
  ARCHIVE_DIR,
  BOOK_FILE,
  BOOKS_DIR,
  KEPT_CARD_FILES,
  markdownFiles,
  SETTINGS_FILE,
  STATE_DIR,
  type Vault,
} from "../vault/index.ts";

/** The person's own style dictionary (style memory's, src/style/vault-dictionary.ts). */
export const STYLE_DICTIONARY_FILE = "style-dictionary.yaml";
/** A book's own files besides a vault's: its book.yaml and the character card it was imported from. */
const BOOK_OWN_FILES: readonly string[] = [BOOK_FILE, ...KEPT_CARD_FILES];
/** The vault-root files that are settings, not cards. */
const CONFIG_FILES = [KINDS_FILE, SETTINGS_FILE, STYLE_DICTIONARY_FILE];
const STATE_FILES = ["marker-secret", "hits.jsonl"];
const CACHE_DB = "index.db";
/** Caches a restore removes with the files it replaces: they describe the cards being replaced. */
const CACHES = ["index.db", "matcher.bin"];
const SQLITE_SIDE_FILES = ["-wal", "-shm", "-journal"];

/** One file to put in a backup: a plain copy, or a database copied through SQLite. */
export interface Source {
  path: string;
  abs: string;
  sqlite: boolean;
}

/**
 * The vault at `root` for a backup, which must work even when `kinds.yaml` does not parse (that is
 * when a backup matters most): its kinds are then the default ones, and `backupSources` looks wider.
 */
export function vaultForBackup(root: string): Vault {
  const abs = path.resolve(root);
  const stat = fs.statSync(abs, { throwIfNoEntry: false });
  if (stat === undefined) throw new LoreError("not_found", `no vault at ${abs}`);
  if (!stat.isDirectory()) throw new LoreError("invalid_input", `the vault path is not a directory: ${abs}`);
  try {
    return { root: abs, kinds: loadKindsConfig(abs) };
  } catch {
    return { root: abs, kinds: defaultKinds() };
  }
}

function entries(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function isPlainDir(abs: string): boolean {
  return fs.lstatSync(abs, { throwIfNoEntry: false })?.isDirectory() === true;
}

const isCardName = (name: string) => name.endsWith(".md") && !name.startsWith(".");

/** Every card file under `_archive/`, at any depth (the archive keeps kinds kinds.yaml no longer names). */
function archived(root: string, rel = ARCHIVE_DIR): string[] {
  if (!isPlainDir(path.join(root, rel))) return [];
  const out: string[] = [];
  for (const d of entries(path.join(root, rel))) {
    const child = `${rel}/${d.name}`;
    if (d.isDirectory() && !d.name.startsWith(".")) out.push(...archived(root, child));
    else if (d.isFile() && isCardName(d.name)) out.push(child);
  }
  return out;
}

function stateFiles(root: string): { path: string; sqlite: boolean }[] {
  const dir = path.join(root, STATE_DIR);
  if (!isPlainDir(dir)) return [];
  return entries(dir)
    .filter((d) => d.isFile())
    .filter((d) => (d.name.endsWith(".db") && d.name !== CACHE_DB) || STATE_FILES.includes(d.name))
    .map((d) => ({ path: `${STATE_DIR}/${d.name}`, sqlite: d.name.endsWith(".db") }));
}

function plainFile(root: string, rel: string): boolean {
  return fs.lstatSync(path.join(root, rel), { throwIfNoEntry: false })?.isFile() === true;
}

/** The files of one vault-shaped folder (the vault, or one of its books), relative to it. */
function ownFiles(root: string): { path: string; sqlite: boolean }[] {
  // Every card wherever it sits, and the notes the vault skips (templates): only the kind folders' own
  // were backed up before, and a vault of notes in folders of its own lost nearly all of them.
  const cards = new Set([...markdownFiles(root), ...archived(root)]);
  const config = CONFIG_FILES.filter((f) => plainFile(root, f));
  return [...[...cards, ...config].map((p) => ({ path: p, sqlite: false })), ...stateFiles(root)];
}

/**
 * The files of each book of `books/` (docs/BOOKS.md): a book is laid out as a vault, so the same
 * files, with its book.yaml, under `books/NAME/`. A book folder that is a link is never followed.
 */
function bookFiles(root: string): { path: string; sqlite: boolean }[] {
  const dir = path.join(root, BOOKS_DIR);
  if (!isPlainDir(dir)) return [];
  return entries(dir)
    .filter((d) => d.isDirectory() && !d.name.startsWith("."))
    .flatMap((d) => {
      const book = path.join(dir, d.name);
      const files = [
        ...ownFiles(book),
        ...BOOK_OWN_FILES.filter((f) => plainFile(book, f)).map((f) => ({ path: f, sqlite: false })),
      ];
      return files.map((f) => ({ ...f, path: `${BOOKS_DIR}/${d.name}/${f.path}` }));
    });
}

/** Every file a backup of `vault` holds, its books' included, sorted. Read it under the vault lock. */
export function backupSources(vault: Vault): Source[] {
  const files = [...ownFiles(vault.root), ...bookFiles(vault.root)];
  // A path's parts are checked already (no `.` or `..`, `/` between them): joined as it is.
  return files
    .map((f): Source => ({ path: f.path, abs: path.join(vault.root, f.path), sqlite: f.sqlite }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * What a restore over `vault` moves out of the way before putting the backup's files in: what a
 * backup of it would hold, with the databases' side files, the whole archive folder, and the caches.
 */
export function replacedPaths(vault: Vault): string[] {
  // What a backup holds was listed just now, under the lock: only what is added to it (none of it a
  // file a backup holds) is looked for.
  const listed: string[] = [];
  const out = new Set<string>();
  for (const s of backupSources(vault)) {
    if (s.path.startsWith(`${ARCHIVE_DIR}/`)) continue;
    listed.push(s.path);
    if (s.sqlite) for (const side of SQLITE_SIDE_FILES) out.add(`${s.path}${side}`);
  }
  const books = isPlainDir(path.join(vault.root, BOOKS_DIR))
    ? entries(path.join(vault.root, BOOKS_DIR))
        .filter((d) => d.isDirectory() && !d.name.startsWith("."))
        .map((d) => `${BOOKS_DIR}/${d.name}/`)
    : [];
  for (const at of ["", ...books])
    for (const cache of CACHES) {
      out.add(`${at}${STATE_DIR}/${cache}`);
      if (cache.endsWith(".db"))
        for (const side of SQLITE_SIDE_FILES) out.add(`${at}${STATE_DIR}/${cache}${side}`);
    }
  // What belongs to the style.db being replaced: its inbox (learned into it by the backup made first)
  // and the mark that it held no hint.
  for (const side of STYLE_SIDE_FILES) out.add(`${STATE_DIR}/${side}`);
  if (isPlainDir(path.join(vault.root, ARCHIVE_DIR))) out.add(ARCHIVE_DIR);
  const more = [...out].filter((p) => fs.lstatSync(path.join(vault.root, p), { throwIfNoEntry: false }));
  return [...listed, ...more];
}

/**
 * Whether a path read from a backup's manifest is one a backup can hold: relative, no `..`, no
 * hidden folder but `.lorecards`, and one of the shapes above. A forged manifest cannot write a
 * `.git/hooks` file or anything outside the target.
 */
export function allowedPath(p: string): boolean {
  if (p.length === 0 || p.length > 4096 || /[\\\0]/.test(p) || p.startsWith("/")) return false;
  const parts = p.split("/");
  if (parts.some((s) => s === "" || s === "." || s === "..")) return false;
  // A book's files are a vault's files under books/NAME/ (books hold no books).
  if (parts[0] === BOOKS_DIR && parts.length > 2 && !parts[1]!.startsWith(".") && parts[2] !== BOOKS_DIR) {
    const rest = parts.slice(2).join("/");
    return BOOK_OWN_FILES.includes(rest) || allowedPath(rest);
  }
  if (parts[0] === STATE_DIR) {
    const name = parts[1]!;
    return parts.length === 2 && ((name.endsWith(".db") && name !== CACHE_DB) || STATE_FILES.includes(name));
  }
  if (parts.some((s) => s.startsWith("."))) return false;
  if (parts.length === 1 && CONFIG_FILES.includes(p)) return true;
  return p.endsWith(".md") && !/^[a-z]:/i.test(p);
}
