/**
 * The vault a command works on: --vault, then $LORECARDS_VAULT, then ~/.lorecards. Apart from
 * _shared.ts because resolving it loads vault/ and card/, which `--version` and `--help` do not need.
 */
import { LoreError } from "../errors.ts";
import { findCard, MAIN_BOOK, openVault, readBooks, resolveVaultPath, type Vault } from "../vault/index.ts";

export function vaultPath(args: { vault?: string }): string {
  return resolveVaultPath(args.vault, process.env);
}

/** True when the default vault is in use (it is created with example cards on first use). */
export function isDefaultVault(args: { vault?: string }): boolean {
  return !args.vault && !process.env.LORECARDS_VAULT;
}

/** `--book NAME`: the book of the vault a command works on (docs/BOOKS.md). */
export const bookArg = {
  book: {
    type: "string",
    description: "the book to work on, a folder of <vault>/books/ (main: the vault's own cards, the default)",
    valueHint: "NAME",
  },
} as const;

/**
 * The vault a one-book command works on: the vault (made when it is the default and missing), or with
 * `--book` the book of that name, which must be there.
 */
export function openBook(args: { vault?: string; book?: string }): Vault {
  const vault = openVault(vaultPath(args), { create: isDefaultVault(args) });
  const name = args.book?.trim().toLowerCase();
  if (!name || name === MAIN_BOOK) return vault;
  const books = readBooks(vault.root);
  const found = books.find((b) => b.name === name);
  if (!found)
    throw new LoreError(
      "not_found",
      `--book: no book "${args.book}" in ${vault.root} (its books: ${books.map((b) => b.name).join(", ")})`,
    );
  return openVault(found.root);
}

/**
 * `find()` of a card by its name, in the vault or book a command works on; a card it does not hold
 * that a book of the vault does is named in the error, with the flag that finds it. Every import goes
 * into a book, so `read 玲·布莱特` after one found nothing and said nothing of where it was.
 */
export function inBookOrSaid<T>(args: { vault?: string; book?: string }, name: string, find: () => T): T {
  const said = (err: unknown): never => {
    if (!(err instanceof LoreError) || err.code !== "not_found" || args.book?.trim()) throw err;
    const holding = readBooks(vaultPath(args))
      .filter((b) => b.name !== MAIN_BOOK && holds(b.root, name))
      .map((b) => b.name);
    if (holding.length === 0) throw err;
    const which =
      holding.length === 1 ? `the book ${holding[0]} has one` : `the books ${holding.join(", ")} have one`;
    throw new LoreError("not_found", `${err.message} (${which}: --book ${holding[0]})`, { cause: err });
  };
  try {
    const found = find();
    // An update's lookup is part of its write: its promise is the one to watch.
    return (found instanceof Promise ? found.catch(said) : found) as T;
  } catch (err) {
    return said(err);
  }
}

function holds(root: string, name: string): boolean {
  try {
    findCard(openVault(root), name);
    return true;
  } catch {
    return false;
  }
}
