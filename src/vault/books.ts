/**
 * The books of a vault (docs/BOOKS.md): a vault holds its own cards (the book `main`), and each folder
 * of `<vault>/books/` is one more book, laid out as a vault of its own (kind folders, its own
 * settings.yaml and kinds.yaml, its own `.lorecards/` index and history), so every tool that works on a
 * vault works on a book. A vault with no `books/` folder is one book, `main`, exactly as before.
 *
 * A book's name is its folder's name, lower case; names are matched ignoring case wherever they are
 * given. Its `book.yaml` says what a person may want besides its cards:
 *
 *   title: Seraphina          how it is shown (default: its name)
 *   character: Seraphina      bound to a character (or `characters: [A, B]`): in use in the
 *                             conversations of that character only (recall/books.ts)
 *   active: asked             in use only when a conversation names it (default: always, unless bound)
 *
 * A character's book made by importing her card keeps that card beside it (`character.png`, `.charx`
 * or `.json`, KEPT_CARD_FILES): what the book exports as a card starts from it (interop/_kept-card.ts).
 *
 * The list is stat'ed at most every `recheckMs` and read again when the books folder or a book.yaml
 * changed, so a running server follows books added, removed and re-bound. Nothing here opens a card.
 */
import fs from "node:fs";
import path from "node:path";
import { BOOKS_DIR } from "../card/index.ts";
import { describeError, LoreError } from "../errors.ts";
import { readPlain } from "../plain-file.ts";
import { yamlData } from "../yaml-data.ts";
import { atomicWrite } from "./_fs.ts";

export { BOOKS_DIR };
/** The vault's own cards, as a book. */
export const MAIN_BOOK = "main";
export const BOOK_FILE = "book.yaml";
/** The character card a character's book was imported from, by the container it came in. */
export const KEPT_CARD_FILES = ["character.png", "character.charx", "character.json"] as const;

export interface BookInfo {
  /** Lower case; `main` is the vault's own cards. */
  name: string;
  /** Its folder (the vault's root for `main`). */
  root: string;
  title: string;
  /** The characters it is bound to (empty: none). */
  characters: string[];
  /** `asked`: in use only when named; `auto`: by default (and, when bound, for its characters). */
  active: "auto" | "asked";
}

/** A book's name: what a base URL (`/books/a+b/v1`) and a folder can both carry unchanged. */
const BOOK_NAME = /^[\p{Ll}\p{Lo}\p{N}][\p{Ll}\p{Lo}\p{N}_.-]{0,79}$/u;

export function bookNameProblem(name: string): string | null {
  const lower = name.toLowerCase();
  if (lower.endsWith(".") || !BOOK_NAME.test(lower))
    return "a book's name is up to 80 letters, digits, '-', '_' or '.', starting with a letter or digit";
  return null;
}

/** The book name a title makes: lower case, each run of other characters one `-` ("Lyra's Tale" → lyra-s-tale). */
export function bookNameOf(title: string): string {
  const slug = title
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{Ll}\p{Lo}\p{N}_.]+/gu, "-")
    .replace(/^[-_.]+|[-_.]+$/g, "")
    .slice(0, 80)
    .replace(/[-_.]+$/, "");
  return slug === "" || bookNameProblem(slug) !== null ? "book" : slug;
}

export function booksDir(vaultRoot: string): string {
  return path.join(vaultRoot, BOOKS_DIR);
}

function words(value: unknown): string[] {
  const list = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
  return list
    .filter((v) => typeof v === "string" || typeof v === "number")
    .map((v) => String(v).trim())
    .filter((v) => v !== "");
}

/** A book.yaml's settings; what does not read is said in `warnings` and left at its default. */
export function parseBookFile(
  text: string,
  name: string,
): { title: string; characters: string[]; active: BookInfo["active"]; warnings: string[] } {
  const warnings: string[] = [];
  let data: unknown;
  try {
    data = yamlData(text);
  } catch (err) {
    warnings.push(`not valid YAML (${describeError(err).split("\n")[0]}); ignored`);
  }
  const map =
    typeof data === "object" && data !== null && !Array.isArray(data)
      ? (data as Record<string, unknown>)
      : {};
  for (const key of Object.keys(map))
    if (!["title", "character", "characters", "active"].includes(key))
      warnings.push(`unknown setting "${key}"; ignored`);
  if (map.active !== undefined && map.active !== "asked" && map.active !== "auto")
    warnings.push("active must be auto or asked; ignored");
  const title = typeof map.title === "string" && map.title.trim() !== "" ? map.title.trim() : name;
  const characters = [...words(map.character), ...words(map.characters)];
  return { title, characters, active: map.active === "asked" ? "asked" : "auto", warnings };
}

/** The books of `vaultRoot` as they are on disk now, `main` first, then by name. */
export function readBooks(vaultRoot: string, warn: (line: string) => void = () => {}): BookInfo[] {
  const main: BookInfo = {
    name: MAIN_BOOK,
    root: vaultRoot,
    title: MAIN_BOOK,
    characters: [],
    active: "auto",
  };
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(booksDir(vaultRoot), { withFileTypes: true });
  } catch {
    return [main];
  }
  const books: BookInfo[] = [];
  const seen = new Set<string>([MAIN_BOOK]);
  const byName = (e: fs.Dirent) => e.name.toLowerCase();
  for (const e of entries.sort((a, b) => (byName(a) < byName(b) ? -1 : byName(a) > byName(b) ? 1 : 0))) {
    // Never through a link (vault/_links.ts): a book is a real folder inside the vault.
    if (!e.isDirectory() || e.name.startsWith(".")) continue;
    const name = e.name.toLowerCase();
    if (bookNameProblem(name) !== null || seen.has(name)) {
      warn(
        `lorecards: ${BOOKS_DIR}/${e.name}: ${seen.has(name) ? "another book has this name (names ignore case)" : bookNameProblem(name)}; not read`,
      );
      continue;
    }
    seen.add(name);
    const root = path.join(booksDir(vaultRoot), e.name);
    let parsed = {
      title: name,
      characters: [] as string[],
      active: "auto" as BookInfo["active"],
      warnings: [] as string[],
    };
    const file = path.join(root, BOOK_FILE);
    if (fs.existsSync(file)) {
      try {
        parsed = parseBookFile(readPlain(file, { name: `${BOOKS_DIR}/${e.name}/${BOOK_FILE}` }), name);
      } catch (err) {
        warn(`lorecards: ${BOOKS_DIR}/${e.name}/${BOOK_FILE}: ${describeError(err)}; ignored`);
      }
    }
    for (const w of parsed.warnings) warn(`lorecards: ${BOOKS_DIR}/${e.name}/${BOOK_FILE}: ${w}`);
    books.push({ name, root, title: parsed.title, characters: parsed.characters, active: parsed.active });
  }
  return [main, ...books];
}

/**
 * The books of one vault, read again only when the books folder or a book.yaml changed: a server
 * stats them at most every `recheckMs` (one stat per book), so choosing a conversation's books costs
 * no read of the disk on most requests.
 */
export class BookShelf {
  private stamp = "";
  private books: BookInfo[];
  private checked = Number.NEGATIVE_INFINITY;

  constructor(
    readonly vaultRoot: string,
    private readonly warn: (line: string) => void = () => {},
    private readonly recheckMs = 0,
  ) {
    this.books = [{ name: MAIN_BOOK, root: vaultRoot, title: MAIN_BOOK, characters: [], active: "auto" }];
  }

  current(): BookInfo[] {
    const now = performance.now();
    if (now - this.checked < this.recheckMs) return this.books;
    this.checked = now;
    const stamp = this.stampNow();
    if (stamp !== this.stamp) {
      this.stamp = stamp;
      this.books = readBooks(this.vaultRoot, this.warn);
    }
    return this.books;
  }

  /** Looks at the disk on the next `current()`: this process has just made or changed a book. */
  recheck(): void {
    this.checked = Number.NEGATIVE_INFINITY;
  }

  /** The book of this name (any case), or undefined. */
  find(name: string): BookInfo | undefined {
    const lower = name.trim().toLowerCase();
    return this.current().find((b) => b.name === lower);
  }

  private stampNow(): string {
    const dir = booksDir(this.vaultRoot);
    const st = fs.statSync(dir, { throwIfNoEntry: false, bigint: true });
    if (!st) return "none";
    const parts = [`${st.mtimeNs}`];
    for (const b of this.books) {
      if (b.name === MAIN_BOOK) continue;
      const f = fs.statSync(path.join(b.root, BOOK_FILE), { throwIfNoEntry: false, bigint: true });
      parts.push(f ? `${b.name}:${f.mtimeNs}:${f.size}` : `${b.name}:-`);
    }
    return parts.join("|");
  }
}

/** The folder of book `name` in `vaultRoot` (`main`: the vault itself), whether it is there or not. */
export function bookRoot(vaultRoot: string, name: string): string {
  const lower = name.trim().toLowerCase();
  if (lower === MAIN_BOOK) return vaultRoot;
  const problem = bookNameProblem(lower);
  if (problem !== null) throw new LoreError("invalid_input", `"${name}": ${problem}`);
  // A folder written in another case is the same book.
  const found = readBooks(vaultRoot).find((b) => b.name === lower);
  return found?.root ?? path.join(booksDir(vaultRoot), lower);
}

/**
 * Write a book's book.yaml (an import binding a character's book to its character): the title and
 * characters given, the file's other settings kept.
 */
export function writeBookFile(root: string, settings: { title: string; characters: string[] }): void {
  const file = path.join(root, BOOK_FILE);
  const old = fs.existsSync(file)
    ? parseBookFile(readPlain(file, { name: file }), path.basename(root))
    : undefined;
  const characters = [...new Set([...(old?.characters ?? []), ...settings.characters])];
  const lines = [
    "# This book's settings (docs/BOOKS.md). Its cards are the Markdown files beside this one.",
    `title: ${JSON.stringify(old?.title ?? settings.title)}`,
    ...(characters.length > 0
      ? [`characters: [${characters.map((c) => JSON.stringify(c)).join(", ")}]`]
      : []),
    ...(old?.active === "asked" ? ["active: asked"] : []),
    "",
  ];
  fs.mkdirSync(root, { recursive: true });
  atomicWrite(file, lines.join("\n"));
}
