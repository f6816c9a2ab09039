/**
 * Which folder is the vault: the flag, else $LORECARDS_VAULT, else ~/.lorecards, `~` expanded. Apart
 * from paths.ts so that the hook's client (cli/hook-client.ts), which asks a running server before
 * loading anything else, loads nothing but node:path to find it.
 */
import path from "node:path";

function expandHome(p: string, env: Record<string, string | undefined>): string {
  if (p !== "~" && !p.startsWith("~/") && !p.startsWith("~\\")) return p;
  // node:os only when the environment does not say: loading it costs a cold start about a millisecond.
  const home = env.HOME || env.USERPROFILE || (require("node:os") as typeof import("node:os")).homedir();
  return path.join(home, p.slice(1));
}

/** The vault directory: the flag, else $LORECARDS_VAULT, else ~/.lorecards; absolute. */
export function resolveVaultPath(
  flag?: string,
  env: Record<string, string | undefined> = process.env,
): string {
  const chosen =
    [flag, env.LORECARDS_VAULT].find((v) => v !== undefined && v.trim() !== "") ?? "~/.lorecards";
  return path.resolve(expandHome(chosen, env));
}
