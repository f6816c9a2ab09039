/**
 * The vault a command works on: --vault, then $LORECARDS_VAULT, then ~/.lorecards. Apart from
 * _shared.ts because resolving it loads vault/ and card/, which `--version` and `--help` do not need.
 */
import { openBookOf, openVault, resolveVaultPath, saidWhereHeld, type Vault } from "../vault/index.ts";

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
  return openBookOf(openVaultOf(args), args.book, "--book");
}

/** The vault itself, whatever `--book` says: made when it is the default and missing. */
export function openVaultOf(args: { vault?: string }): Vault {
  return openVault(vaultPath(args), { create: isDefaultVault(args) });
}

/**
 * `find()` of a card by its name, in the vault or book a command works on; with no `--book`, a card the
 * vault's own cards do not hold that a book does is named in the error, with the flag that finds it.
 */
export function inBookOrSaid<T>(args: { vault?: string; book?: string }, name: string, find: () => T): T {
  return args.book?.trim() ? find() : saidWhereHeld(vaultPath(args), name, "--book", find);
}
