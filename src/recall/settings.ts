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
  if (out.reach === undefined && settings.reach !== undefined) out.reach = settings.reach;
  if (out.lore === undefined && settings.lore !== undefined) out.lore = settings.lore;
  return out;
}
