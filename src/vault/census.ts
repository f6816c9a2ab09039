/**
 * Every file of the vault accounted for, for `check` (docs/CARDS.md "Card format"): a folder of notes
 * (an Obsidian vault, a Logseq graph, a writer's world folder) holds more than cards, and a file the
 * vault does not use is listed with the reason, never passed over in silence. The cards themselves
 * (and the files that fail to parse) are the index's; this lists the rest: lorecards' own settings
 * files, and what is skipped — other extensions (attachments), hidden files, folders skipped on purpose
 * (each listed once, not file by file), symbolic links. It walks the whole tree, which only `check`,
 * run by hand, pays for.
 */

import fs from "node:fs";
import path from "node:path";
import { cardAt, KINDS_FILE, skippedFolder } from "../card/index.ts";
import { inSkippedDir } from "../card/note-apps.ts";
import { describeError } from "../errors.ts";
import { gcTick } from "../gc-tick.ts";
import { openPlain } from "../plain-file.ts";
import { BOOK_FILE, BOOKS_DIR } from "./books.ts";
import { GUIDE_FILE } from "./guide.ts";
import { STATE_DIR, type Vault } from "./paths.ts";
import { SETTINGS_FILE } from "./settings.ts";

/** The vault's own files in its root, besides cards; a book (books/NAME/) has its book.yaml too. */
function settingsFiles(vault: Vault): string[] {
  const isBook = path.basename(path.dirname(vault.root)) === BOOKS_DIR;
  return [KINDS_FILE, SETTINGS_FILE, GUIDE_FILE, ...(isBook ? [BOOK_FILE] : [])];
}

export interface SkippedFile {
  /** Vault-relative, `/`-separated; a folder ends with `/`. */
  path: string;
  reason: string;
}

export interface Census {
  /** Card files (Markdown files where cards live): the index parses each, as a card or a broken one. */
  cardFiles: number;
  /** Card files with no frontmatter: each is a card whose only name is its file name. */
  bare: string[];
  /** lorecards' own files in the root that are no card (kinds.yaml, settings.yaml, the guide, a book's book.yaml, `.lorecards/`). */
  settings: string[];
  /** Everything else, with why it is not a card. */
  skipped: SkippedFile[];
}

/** Why a file that is no card file is not one. */
function fileReason(name: string): string {
  if (name.startsWith(".")) return "a hidden file";
  if (name.endsWith(".tmp")) return "a temp file (an interrupted save; check removes old ones)";
  const ext = path.extname(name).toLowerCase();
  return ext === ""
    ? "not a Markdown file (no extension): cards are .md files"
    : `not a Markdown file (${ext}): cards are .md files`;
}

/** Whether a file starts with `---` (after a BOM): a card with frontmatter. */
function opensFrontmatter(file: string): boolean {
  try {
    const fd = openPlain(file);
    try {
      const head = Buffer.alloc(6);
      const n = fs.readSync(fd, head, 0, 6, 0);
      return head
        .subarray(0, n)
        .toString("utf8")
        .replace(/^\uFEFF/, "")
        .startsWith("---");
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return true; // unreadable: the index reports it as it can
  }
}

/** What an entry that is neither a file, a folder nor a link is. */
function notPlain(e: fs.Dirent): string {
  if (e.isFIFO()) return "a FIFO (named pipe)";
  if (e.isSocket()) return "a socket";
  return e.isCharacterDevice() || e.isBlockDevice() ? "a device" : "not a plain file";
}

/** Every file under the vault root, each counted as a card file, a setting, or skipped with its reason. */
export function vaultCensus(vault: Vault): Census {
  const census: Census = { cardFiles: 0, bare: [], settings: [], skipped: [] };
  const settings = settingsFiles(vault);
  const tick = gcTick();
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir === "" ? vault.root : path.join(vault.root, dir), { withFileTypes: true });
    } catch (err) {
      census.skipped.push({ path: `${dir}/`, reason: `cannot be read (${describeError(err)})` });
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      tick();
      const rel = dir === "" ? e.name : `${dir}/${e.name}`;
      if (e.isSymbolicLink()) {
        census.skipped.push({
          path: rel,
          reason: "a symbolic link: lorecards never follows links in the vault",
        });
      } else if (e.isDirectory()) {
        const why =
          skippedFolder(e.name, dir === "") ?? inSkippedDir(vault.kinds.skipped, rel)?.reason ?? null;
        if (why === null) walk(rel);
        else if (dir === "" && e.name === STATE_DIR) census.settings.push(`${rel}/`);
        else census.skipped.push({ path: `${rel}/`, reason: why });
      } else if (!e.isFile()) {
        census.skipped.push({ path: rel, reason: `${notPlain(e)}: lorecards reads only plain files` });
      } else if (dir === "" && settings.includes(e.name)) census.settings.push(rel);
      else if (cardAt(vault.kinds, rel) !== undefined) {
        census.cardFiles++;
        if (!opensFrontmatter(path.join(vault.root, rel))) census.bare.push(rel);
      } else census.skipped.push({ path: rel, reason: fileReason(e.name) });
    }
  };
  walk("");
  return census;
}
