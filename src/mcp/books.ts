/**
 * The book an MCP server works on (docs/BOOKS.md), as the CLI's `--book` chooses one: `lorecards mcp
 * --book NAME` serves that book's cards, while adoptions, lore switches and style memory stay in the
 * vault's own `.lorecards/`, where the gateway and the hook read them. Started with no `--book`, it
 * serves the vault's own cards and says what its books hold, as the CLI does: list_cards lists the
 * books, a card only a book holds is named in the not-found of read_card and update_recent (vault/
 * `saidWhereHeld`), and a new card may not take the name of a card a book read by default has
 * (writes/). The flag is the server's, not the agent's, so the hints name it with the command.
 */
import { idOf } from "../recall/stages/notice.ts";
import { MAIN_BOOK, otherBooks, saidWhereHeld, type Vault } from "../vault/index.ts";

/** How the hints name the flag that chooses a book. */
export const BOOK_FLAG = "lorecards mcp --book";

/** The book named when the server was started (`main` too). None: the vault's own cards, unasked. */
export interface ServedBook {
  /** Its name, lower case. */
  name: string;
  /** The vault's own folder, where state and style memory are kept whatever book is served. */
  vaultRoot: string;
}

/** The folder of the vault's own state and style memory. */
export function homeOf(vault: Vault, book: ServedBook | undefined): string {
  return book?.vaultRoot ?? vault.root;
}

/** `find()`; served unasked, a card only a book holds is named in its not-found with the flag. */
export function findSaying<T>(vault: Vault, book: ServedBook | undefined, name: string, find: () => T): T {
  return book ? find() : saidWhereHeld(vault.root, name, BOOK_FLAG, find);
}

/** The flag writes/ names when a new card's name is a book's, or none when a book was chosen. */
export function bookFlagOf(book: ServedBook | undefined): string | undefined {
  return book ? undefined : BOOK_FLAG;
}

/** list_cards' `books`: the vault's books besides its own cards, served unasked; none otherwise. */
export function booksBeside(vault: Vault, book: ServedBook | undefined) {
  if (book) return {};
  const books = otherBooks(vault.root);
  return books.length > 0 ? { books } : {};
}

/** The id recall gives a card of the served book (an index block's, for adoptions). */
export function cardIdIn(book: ServedBook | undefined, card: { kind: string; key: string }): string {
  return idOf({ ...card, book: book && book.name !== MAIN_BOOK ? book.name : undefined });
}
