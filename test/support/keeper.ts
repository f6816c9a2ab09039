/**
 * The keeper a cold `try` or hook starts for a large vault (`refresh --watch`, vault/keeper.ts) runs in
 * a session of its own and outlives the process that started it: a test that runs the binary on such a
 * vault reads the keeper's pid from the vault and stops it, and waits until it has gone.
 */
import fs from "node:fs";
import path from "node:path";
import { until } from "./wait.ts";

export const keeperFile = (vault: string) => path.join(vault, ".lorecards", "keeper.json");

/** The pid the vault's keeper file names, or undefined when there is none. */
export function keeperPid(vault: string): number | undefined {
  try {
    return (JSON.parse(fs.readFileSync(keeperFile(vault), "utf8")) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops the vault's keeper, if one runs, and resolves once it has left. */
export async function stopKeeper(vault: string): Promise<void> {
  const pid = keeperPid(vault);
  if (pid === undefined || !alive(pid)) return;
  process.kill(pid, "SIGTERM");
  await until(() => !alive(pid), `the keeper ${pid} of ${vault} to leave`);
}
