/**
 * This program run again, in the background: the refresher a server hands its scans to
 * (_refresher.ts) and the keeper a cold process starts for a large vault (vault/keeper.ts). Small on
 * purpose: the hook imports it, so what a spawn needs (node:child_process, node:os) is loaded only when
 * a keeper is actually started.
 */
import { existsSync } from "node:fs";
import { isEmbedded } from "../embedded.ts";

/** A nice value: the scheduler gives background work the cores the foreground leaves idle. */
export const LOW_PRIORITY = 10;

/** How to run this program again: the compiled binary alone, or the runtime with its script. */
export function selfCommand(main = Bun.main): string[] {
  return isEmbedded(main) || !existsSync(main) ? [process.execPath] : [process.execPath, main];
}

/**
 * Starts the keeper of the vault at `root` (vault/keeper.ts): `lorecards refresh --watch --vault
 * <root>`, in a session of its own so that it outlives the hook or `try` that started it, at a low
 * priority, its output discarded.
 */
export function selfKeeper(root: string): () => void {
  return () => {
    const { spawn } = require("node:child_process") as typeof import("node:child_process");
    const [cmd, ...args] = selfCommand();
    const child = spawn(cmd!, [...args, "refresh", "--watch", "--vault", root], {
      detached: true,
      stdio: "ignore",
    });
    child.unref();
    try {
      const { setPriority } = require("node:os") as typeof import("node:os");
      if (child.pid !== undefined) setPriority(child.pid, LOW_PRIORITY);
    } catch {
      // not allowed here: it runs at our priority
    }
  };
}
