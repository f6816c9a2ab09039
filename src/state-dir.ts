/**
 * The vault's folder of lorecards' own state (the index, conversations, history, backups, the hook's
 * socket), in a file of its own: the hook's client finds a running server's socket in it before it
 * loads anything else (cli/hook-client.ts).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export const STATE_DIR = ".lorecards";

/**
 * A state folder just made gets a `.gitignore` of `*`: a vault kept in git (a notes app's git plugin
 * commits every file) would otherwise carry the marker secret, the card histories and the backups to
 * its remote. Best effort: a folder that refuses it is no less a state folder.
 */
export function madeStateDir(dir: string): void {
  try {
    writeFileSync(
      join(dir, ".gitignore"),
      "# lorecards' own state: caches, histories, backups, a secret.\n*\n",
      {
        flag: "wx",
      },
    );
  } catch {
    // there already, or not writable
  }
}
