/**
 * Recall's options from the vault's settings.yaml (vault/settings.ts): what the caller gave wins, each
 * name on its own, and the file fills in what it left unset.
 */
import type { VaultSettings } from "../vault/index.ts";
import type { RecallOptions } from "./types.ts";

/**
 * The options of one recall: what the caller gave, and the vault's settings where it gave nothing
 * (each name on its own: `--user` alone keeps the file's `char`).
 */
export function withSettings(options: RecallOptions, settings: VaultSettings): RecallOptions {
  const char = options.names?.char ?? settings.char;
  const user = options.names?.user ?? settings.user;
  const names = char === undefined && user === undefined ? undefined : { char, user };
  const out: RecallOptions = { ...options };
  if (names) out.names = names;
  if (out.budgetTokens === undefined && settings.budgetTokens !== undefined)
    out.budgetTokens = settings.budgetTokens;
  if (out.budget === undefined && settings.budget !== undefined) out.budget = settings.budget;
  if (out.reach === undefined && settings.reach !== undefined) out.reach = settings.reach;
  if (out.lore === undefined && settings.lore !== undefined) out.lore = settings.lore;
  return out;
}

/**
 * The settings of a recall over several books: the vault's own settings.yaml where it says something
 * (its owner's word for every conversation), then each book's own in the order read; a budget a book
 * sets is room for its cards, so of the books' budgets the largest counts. The conversation's
 * character (recall/books.ts) is the name `{{char}}` stands for, unless a settings.yaml says one.
 */
export function mergeSettings(
  main: VaultSettings,
  books: readonly VaultSettings[],
  character?: string,
): VaultSettings {
  const out: VaultSettings = {};
  const keys = new Set([...Object.keys(main), ...books.flatMap((b) => Object.keys(b))]) as Set<
    keyof VaultSettings
  >;
  for (const key of keys) {
    if (main[key] !== undefined) {
      (out as Record<string, unknown>)[key] = main[key];
      continue;
    }
    const given = books.map((b) => b[key]).filter((v) => v !== undefined);
    if (given.length === 0) continue;
    (out as Record<string, unknown>)[key] = /^budget/.test(key) ? Math.max(...(given as number[])) : given[0];
  }
  if (main.char === undefined && character !== undefined) {
    const own = books.find((b) => b.char !== undefined)?.char;
    out.char = own ?? character;
  }
  return out;
}
