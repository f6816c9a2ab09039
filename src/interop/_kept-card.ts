/**
 * The character card a character's book was imported from, kept beside its cards (docs/BOOKS.md): the
 * import writes the file as it came (PNG, CHARX or JSON), and exporting the book as a card starts from
 * it, so the character comes back with her own description, greeting and picture and the book as it is
 * now, with no `--card` to remember. A `--card` given still wins.
 */
import fs from "node:fs";
import path from "node:path";
import { openPlain } from "../plain-file.ts";
import { atomicCreate, atomicWrite, KEPT_CARD_FILES } from "../vault/index.ts";
import type { BaseCardFile } from "./_export.ts";
import type { SourceFormat } from "./_parse.ts";

const FILE_OF: Partial<Record<SourceFormat, (typeof KEPT_CARD_FILES)[number]>> = {
  "card-png": "character.png",
  charx: "character.charx",
  "card-json": "character.json",
};

/**
 * Keeps the card `input` (its bytes, or its parsed JSON) in the book at `root`, unless one is kept
 * already and `force` is off (as a card file is). Returns the kept file's name and whether it was
 * written now; undefined for a format that is not a character card.
 */
export function keepCard(
  root: string,
  format: SourceFormat,
  input: unknown,
  force: boolean,
): { name: string; written: boolean } | undefined {
  const name = FILE_OF[format];
  if (name === undefined) return undefined;
  const bytes =
    input instanceof Uint8Array ? input : new TextEncoder().encode(`${JSON.stringify(input, null, 2)}\n`);
  const file = path.join(root, name);
  // One kept card a book: a card that came in another container replaces the one kept before.
  const others = KEPT_CARD_FILES.filter((f) => f !== name && fs.existsSync(path.join(root, f)));
  if (!force && (others.length > 0 || fs.existsSync(file)))
    return { name: others[0] ?? name, written: false };
  if (force) atomicWrite(file, bytes);
  else if (!atomicCreate(file, bytes)) return { name, written: false };
  for (const other of others) fs.rmSync(path.join(root, other), { force: true });
  return { name, written: true };
}

/**
 * The card kept in the book at `root`, as an export's base card; undefined when none is. One that is
 * not a plain file of its own (a link, a folder) is refused by name, as any file read from the vault.
 */
export function keptCard(root: string): BaseCardFile | undefined {
  for (const name of KEPT_CARD_FILES) {
    const file = path.join(root, name);
    let fd: number;
    try {
      fd = openPlain(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw err;
    }
    try {
      return { bytes: new Uint8Array(fs.readFileSync(fd)), filename: file };
    } finally {
      fs.closeSync(fd);
    }
  }
  return undefined;
}
