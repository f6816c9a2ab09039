/**
 * The vault a command works on: --vault, then $LORECARDS_VAULT, then ~/.lorecards. Apart from
 * _shared.ts because resolving it loads vault/ and card/, which `--version` and `--help` do not need.
 */
import { resolveVaultPath } from "../vault/index.ts";

export function vaultPath(args: { vault?: string }): string {
  return resolveVaultPath(args.vault, process.env);
}

/** True when the default vault is in use (it is created with example cards on first use). */
export function isDefaultVault(args: { vault?: string }): boolean {
  return !args.vault && !process.env.LORECARDS_VAULT;
}
