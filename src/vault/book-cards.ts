/**
 * The cards of a vault's books by name (docs/BOOKS.md), for the surfaces that work on one book at a
 * time (the CLI's `--book`, `lorecards mcp --book`): opening the book a person named, which books hold
 * a card a name names (the one lookup, lookup.ts), and a not-found said again with the book that holds
 * the card and the flag that reaches it. Every import goes into a book, so `read 玲·布莱特` after one
 * found nothing in the vault's own cards and said nothing of where the card was.
 */
import type { CardMeta } from "../card/types.ts";
import { LoreError } from "../errors.ts";
import { BOOKS_DIR, type BookInfo, MAIN_BOOK, readBooks } from "./books.ts";
import { loadIndex } from "./catalog.ts";
import { cleanName, indexLookup } from "./lookup.ts";
import { openVault } from "./open.ts";
import type { Vault } from "./paths.ts";

/** Book `name` of `vault` (any case; `main` or none: the vault itself), opened; not_found lists them. */
export function openBookOf(vault: Vault, name: string | undefined, flag: string): Vault {
  const lower = name?.trim().toLowerCase();
  if (!lower || lower === MAIN_BOOK) return vault;
  const books = readBooks(vault.root);
  const found = books.find((b) => b.name === lower);
  if (!found)
    throw new LoreError(
      "not_found",
      `${flag}: no book "${name}" in ${vault.root} (its books: ${books.map((b) => b.name).join(", ")})`,
    );
  return openVault(found.root);
}

/** A card a book holds. */
export interface HeldCard {
  book: string;
  card: CardMeta;
}

/**
 * The first card of each book of `vaultRoot` besides its own cards that one of `names` names, in the
 * shelf's order: only the books `only` names when given, and only enabled cards when `enabled`. A book
 * that cannot be read holds nothing here.
 */
export function cardsInBooks(
  vaultRoot: string,
  names: readonly string[],
  opts: { only?: readonly string[]; enabled?: boolean } = {},
): HeldCard[] {
  const held: HeldCard[] = [];
  for (const b of readBooks(vaultRoot)) {
    if (b.name === MAIN_BOOK || (opts.only !== undefined && !opts.only.includes(b.name))) continue;
    try {
      const book = openVault(b.root);
      const lookup = indexLookup(book.kinds, loadIndex(book));
      const card = names.flatMap((n) => lookup.named(n)).find((c) => !opts.enabled || c.enabled);
      if (card) held.push({ book: b.name, card });
    } catch {
      // Unreadable, it is said where it is read for recall; here it only cannot be named.
    }
  }
  return held;
}

/** `the book eldoria has one: --book eldoria`, how a surface says where a card is. */
export function heldBy(books: readonly string[], flag: string, as?: string): string {
  const which =
    books.length === 1
      ? `the book ${books[0]} has ${as === undefined ? "one" : `it as "${as}"`}`
      : `the books ${books.join(", ")} have one`;
  return `${which}: ${flag} ${books[0]}`;
}

/**
 * `find()` in the vault's own cards, and its not_found said again when books of `vaultRoot` hold the
 * card `name` names: `no card named "Harbor" (the book kobold-worldinfo has one: --book
 * kobold-worldinfo)`. A name written as a path into a book (`books/eldoria/Glade`) is looked for in
 * that book by the rest of it, the name that book knows it by.
 */
export function saidWhereHeld<T>(vaultRoot: string, name: string, flag: string, find: () => T): T {
  const said = (err: unknown): never => {
    if (!(err instanceof LoreError) || err.code !== "not_found") throw err;
    const inBook = pathIntoBook(name);
    const holding = inBook
      ? cardsInBooks(vaultRoot, [inBook.rest], { only: [inBook.book] })
      : cardsInBooks(vaultRoot, [name]);
    if (holding.length === 0) throw err;
    const where = heldBy(
      holding.map((h) => h.book),
      flag,
      inBook?.rest,
    );
    throw new LoreError("not_found", `${err.message} (${where})`, { cause: err });
  };
  try {
    const found = find();
    // An update's lookup is part of its write: its promise is the one to watch.
    return (found instanceof Promise ? found.catch(said) : found) as T;
  } catch (err) {
    return said(err);
  }
}

/** `books/eldoria/places/Glade` → the book and the rest; undefined for any other name. */
function pathIntoBook(name: string): { book: string; rest: string } | undefined {
  const m = /^([^/]+)\/([^/]+)\/(.+)$/.exec(cleanName(name));
  if (!m || m[1]!.toLowerCase() !== BOOKS_DIR) return undefined;
  return { book: m[2]!.toLowerCase(), rest: m[3]! };
}

/** The vault's books besides its own cards, each with its card count (`list`, MCP `list_cards`). */
export function otherBooks(vaultRoot: string) {
  return readBooks(vaultRoot)
    .filter((b) => b.name !== MAIN_BOOK)
    .map((b: BookInfo) => ({
      name: b.name,
      title: b.title,
      characters: b.characters,
      active: b.active,
      cards: loadIndex(openVault(b.root)).cards.length,
    }));
}
