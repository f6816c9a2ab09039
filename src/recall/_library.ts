/**
 * The books of one vault as recall reads them (docs/BOOKS.md): the vault's own cards (`main`, the
 * engine's own source), and each book of `books/` read by an engine of its own, opened on first use
 * with the server's options but no watcher of its own (the vault's watcher names their files: onFile).
 * For a recall it chooses the books (books.ts), and hands back one vault version: `main`'s own when it
 * is the only one, else the union of the chosen books (_union.ts), kept per set of book versions; and
 * their settings merged (settings.ts `mergeSettings`). A vault without books costs one stat of a folder
 * that is not there, at most once a second on a server.
 */
import { describeError } from "../errors.ts";
import { Matcher } from "../match/index.ts";
import {
  ARCHIVE_DIR,
  BOOKS_DIR,
  BookShelf,
  MAIN_BOOK,
  STATE_DIR,
  type VaultSettings,
} from "../vault/index.ts";
import type { Compiled } from "./_compiled.ts";
import { type BookPart, unionOf } from "./_union.ts";
import { type BookAsk, type ChosenBooks, chooseBooks } from "./books.ts";
import { mergeSettings } from "./settings.ts";
import type { VaultSource } from "./source.ts";

/** What the library needs of one book: the engine of index.ts is one. */
export interface BookReader {
  readonly source: VaultSource;
  settings(): VaultSettings;
  close(): void;
}

export interface Read {
  compiled: Compiled;
  settings: VaultSettings;
  chosen: ChosenBooks;
}

/** Unions kept (a server sees few sets of books: one per character, and the default). */
const UNIONS_KEPT = 32;

export class Library {
  readonly shelf: BookShelf;
  private readonly readers = new Map<string, BookReader>();
  private readonly unions = new Map<string, Compiled>();

  constructor(
    private readonly main: BookReader,
    private readonly open: (root: string) => BookReader,
    private readonly warn: (line: string) => void,
    recheckMs: number,
  ) {
    this.shelf = new BookShelf(main.source.vault.root, warn, recheckMs);
  }

  /** The reader of book `name` (any case; `main`: the vault's own), or undefined when there is none. */
  reader(name: string): BookReader | undefined {
    const book = this.shelf.find(name);
    if (!book) return undefined;
    if (book.name === MAIN_BOOK) return this.main;
    let reader = this.readers.get(book.name);
    if (!reader || reader.source.vault.root !== book.root) {
      reader?.close();
      reader = this.open(book.root);
      this.readers.set(book.name, reader);
    }
    return reader;
  }

  /** A file the vault's watcher named: a book's card file goes to that book's reader. */
  onFile(rel: string): void {
    if (!rel.startsWith(`${BOOKS_DIR}/`)) return;
    const slash = rel.indexOf("/", BOOKS_DIR.length + 1);
    if (slash === -1) return;
    const rest = rel.slice(slash + 1);
    if (rest.startsWith(STATE_DIR) || rest.startsWith(ARCHIVE_DIR)) return;
    this.readers.get(rel.slice(BOOKS_DIR.length + 1, slash).toLowerCase())?.source.invalidate([rest]);
  }

  choose(ask: BookAsk = {}): ChosenBooks {
    return chooseBooks(this.shelf.current(), ask);
  }

  /** The vault version and settings of a recall asking `ask`; a book that cannot be read is left out, said once. */
  async read(ask: BookAsk = {}): Promise<Read> {
    const chosen = this.choose(ask);
    if (chosen.books.length === 1 && chosen.books[0] === MAIN_BOOK)
      return { compiled: await this.main.source.current(), settings: this.main.settings(), chosen };
    const parts: BookPart[] = [];
    const settings: VaultSettings[] = [];
    for (const name of chosen.books) {
      const reader = this.reader(name);
      if (!reader) continue;
      try {
        parts.push({ name, compiled: await reader.source.current() });
        settings.push(reader.settings());
      } catch (err) {
        this.warn(`lorecards: the book "${name}" could not be read (${describeError(err)}); left out`);
      }
    }
    const merged = mergeSettings(
      chosen.books.includes(MAIN_BOOK) ? this.main.settings() : {},
      settings,
      chosen.character,
    );
    if (parts.length === 0) {
      // No book at all: the vault's own cards, unasked, are not read either: an empty set.
      const compiled = await this.main.source.current();
      return {
        compiled: unionOf([{ name: MAIN_BOOK, compiled: emptyOf(compiled) }]),
        settings: merged,
        chosen,
      };
    }
    const key = parts.map((p) => `${p.name}@${p.compiled.loaded.stamp}`).join("+");
    let compiled = this.unions.get(key);
    if (!compiled) {
      compiled = unionOf(parts);
      if (this.unions.size >= UNIONS_KEPT) this.unions.delete(this.unions.keys().next().value as string);
      this.unions.set(key, compiled);
    }
    return { compiled, settings: merged, chosen };
  }

  close(): void {
    for (const reader of this.readers.values()) reader.close();
    this.readers.clear();
    this.unions.clear();
  }
}

/** A vault version with no card in it (a request that names only books the vault does not have). */
function emptyOf(compiled: Compiled): Compiled {
  const none = { length: 0, at: () => undefined };
  return {
    ...compiled,
    loaded: { ...compiled.loaded, cards: none, matcher: new Matcher(none, []) },
    broken: [],
  };
}
