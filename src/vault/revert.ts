/**
 * Putting a card back as it was after one of its versions (`lorecards revert`, the editor's history
 * view). It is a write like any other: the locked, atomic rewrite of cards.ts with the caller's mtime
 * precondition, recorded as a version of its own (action "revert", naming the version gone back to).
 * Only a live card is reverted: an archived one is refused, to be restored from the archive first, so
 * one command never both restores and rewrites. A version whose text would not read back as a card
 * under today's kinds is refused too, and the card is left as it is.
 */
import fs from "node:fs";
import { kindByName, parseCard } from "../card/index.ts";
import type { Card, KindDef } from "../card/types.ts";
import { LoreError } from "../errors.ts";
import { rewrite, type WriteOptions } from "./cards.ts";
import { readVersion } from "./history.ts";
import { ARCHIVE_DIR, archiveDir, cardPath, relPath, type Vault } from "./paths.ts";

export interface Reverted {
  card: Card;
  /** False when the card already held that version's text (nothing was written or recorded). */
  changed: boolean;
}

/** Whether the archive holds this card (as `key.md` or `key~n.md`). */
function isArchived(vault: Vault, kind: string, key: string): boolean {
  const dir = archiveDir(vault, kindByName(vault.kinds, kind));
  try {
    return fs
      .readdirSync(dir)
      .some((n) => n === `${key}.md` || (n.startsWith(`${key}~`) && n.endsWith(".md")));
  } catch {
    return false;
  }
}

function archived(def: KindDef, key: string, cause?: unknown): LoreError {
  const where = [ARCHIVE_DIR, def.dir, `${key}.md`].filter((p) => p !== "").join("/");
  return new LoreError(
    "not_found",
    `${def.name}/${key} is not a live card, it is in the archive (${where}): restore it first ` +
      "(the editor's Archived list), then revert it",
    { cause },
  );
}

export async function revertCard(
  vault: Vault,
  kind: string,
  key: string,
  version: number,
  opts: WriteOptions = {},
): Promise<Reverted> {
  const def = kindByName(vault.kinds, kind);
  const row = readVersion(vault, version);
  if (row === null || row.kind !== def.name || row.key !== key) {
    throw new LoreError("not_found", `${def.name}/${key} has no version ${version} (see: lorecards history)`);
  }
  const file = cardPath(vault, def.name, key);
  if (!fs.existsSync(file) && isArchived(vault, def.name, key)) throw archived(def, key);
  if (row.after === null) {
    throw new LoreError(
      "invalid_input",
      `version ${version} archived ${def.name}/${key}: it has no text to go back to`,
    );
  }
  const target = row.after;
  parseCard(target, { kind: def.name, key, kinds: vault.kinds, path: relPath(vault, file) });
  let changed = false;
  try {
    const card = await rewrite(
      vault,
      def.name,
      key,
      { ...opts, action: "revert", revertedTo: version },
      (text) => {
        changed = text !== target;
        return target;
      },
    );
    return { card, changed };
  } catch (err) {
    // Archived between the check above and the lock.
    if (err instanceof LoreError && err.code === "not_found" && isArchived(vault, def.name, key)) {
      throw archived(def, key, err);
    }
    throw err;
  }
}
