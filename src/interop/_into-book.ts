/**
 * An import into the vault's books (docs/BOOKS.md), as SillyTavern keeps a lorebook per world and per
 * character: a character card makes (or adds to) that character's book, named after the character and
 * bound to it (its book.yaml `characters:`), so it is read in that character's conversations only; a
 * lorebook makes (or adds to) a book named after it (its own name, else its file's), read in every
 * conversation. `book` chooses another (`main`: the vault's own cards, as before books). A new book is
 * a fresh vault, so a lorebook's own settings go into its settings.yaml (`importBook`).
 */
import fs from "node:fs";
import path from "node:path";
import { DEFAULTS } from "../defaults.ts";
import { LoreError } from "../errors.ts";
import {
  bookNameOf,
  bookNameProblem,
  bookRoot,
  MAIN_BOOK,
  openVault,
  writeBookFile,
} from "../vault/index.ts";
import { settingsIn } from "./_book-settings.ts";
import { type ImportOptions, type ImportResult, importBook } from "./_disk.ts";
import { keepCard } from "./_kept-card.ts";
import { type ParsedBook, parseBook } from "./_parse.ts";

export interface IntoBookOptions extends ImportOptions {
  /** The book to import into (`main`: the vault's own cards); default: the file's own book. */
  book?: string;
  /** Told the book's folder before anything is written (to settle an import interrupted there). */
  onTarget?: (root: string) => void;
}

export interface BookImported extends ImportResult {
  /** Where the cards went: the book's name and folder, whether it was made now, who it is bound to. */
  into: { name: string; root: string; made: boolean; character?: string };
}

/** The book a file goes into when none is named: its character's, else its own name's, else its file's. */
export function ownBookOf(parsed: { character?: string; name?: string }, filename: string): string {
  if (parsed.character?.trim()) return bookNameOf(parsed.character);
  const stem = path.basename(filename).replace(/\.(json|png|charx|txt)$/i, "");
  return bookNameOf(parsed.name?.trim() || stem);
}

export async function importIntoBook(
  vaultRoot: string,
  input: Uint8Array | unknown,
  opts: IntoBookOptions,
): Promise<BookImported> {
  const parsed = await parseBook(input, { filename: opts.filename, zipLimits: opts.zipLimits });
  const name = (opts.book?.trim() || ownBookOf(parsed, opts.filename)).toLowerCase();
  if (name !== MAIN_BOOK) {
    const problem = bookNameProblem(name);
    if (problem !== null) throw new LoreError("invalid_input", `book "${name}": ${problem}`);
  }
  const root = bookRoot(vaultRoot, name);
  const made = !fs.existsSync(root);
  // A character's own book is bound to it when the file is its card and the book is named for it.
  const character =
    parsed.character?.trim() && name === bookNameOf(parsed.character) ? parsed.character.trim() : undefined;
  if (name !== MAIN_BOOK) {
    fs.mkdirSync(root, { recursive: true });
    if (made || character !== undefined)
      writeBookFile(root, {
        title: character ?? parsed.name?.trim() ?? name,
        characters: character ? [character] : [],
      });
  }
  opts.onTarget?.(root);
  // Of the vault's and the book's budgets the largest counts (recall/settings.ts): one chosen in either
  // is the person's, and the import says nothing of room.
  const chosen = [vaultRoot, ...(name === MAIN_BOOK ? [] : [root])].some((dir) => {
    const s = settingsIn(dir);
    return s.budget !== undefined || s.budgetTokens !== undefined;
  });
  // Read again by the import itself, which parses what it writes (a few milliseconds for a large book).
  const result = await importBook(openVault(root), input, {
    ...opts,
    ...(!chosen && { room: { budget: DEFAULTS.budget } }),
  });
  // A bound book's {{char}} is its character wherever it is read: nothing is left to set for it.
  if (character !== undefined) {
    const kept = name === MAIN_BOOK ? undefined : keepCard(root, parsed.format, input, opts.force === true);
    result.notes = [
      ...result.notes.filter((n) => !n.startsWith("set char:")),
      `read in ${character}'s conversations (the system prompt names ${character}), where {{char}} is ${character}`,
      ...(kept === undefined
        ? []
        : kept.written
          ? [`her card kept as ${kept.name} in the book: exported as a card, the book starts from it`]
          : [`the card kept as ${kept.name} in the book is left as it is (--force replaces it)`]),
    ];
  }
  const unnamed = userUnnamed(parsed, [vaultRoot, ...(name === MAIN_BOOK ? [] : [root])]);
  if (unnamed !== undefined) result.notes = [...result.notes, unnamed];
  // A world book is read in every conversation from now on, beside any other: a new user found a
  // Korean school's always-on cards in a Chinese fantasy chat. Said once, when the book is made.
  if (made && character === undefined && name !== MAIN_BOOK) {
    const yaml = `${path.relative(vaultRoot, root).split(path.sep).join("/")}/book.yaml`;
    result.notes = [
      ...result.notes,
      `read in every conversation, beside the vault's other books: \`active: asked\` in ${yaml} reads it only where a conversation names it (docs/BOOKS.md)`,
    ];
  }
  return { ...result, into: { name, root, made, ...(character !== undefined && { character }) } };
}

/** `{{user}}` and its alias `<user>`, in any letter case (recall/macros.ts reads them so). */
const USER_MACRO = /\{\{user\}\}|<user>/i;

/**
 * Said when the book's enabled entries speak of `{{user}}` and neither the vault's settings.yaml nor
 * the book's names the person: SillyTavern puts its persona's name there, lorecards leaves the macro
 * as written, and a companion service found its model reading "{{user}}: …" in 198 of its requests.
 */
function userUnnamed(parsed: ParsedBook, settingsDirs: readonly string[]): string | undefined {
  if (settingsDirs.some((dir) => settingsIn(dir).user !== undefined)) return undefined;
  const n = parsed.entries.filter((e) => e.enabled && USER_MACRO.test(e.body)).length;
  if (n === 0) return undefined;
  return (
    `${n} of its entries speak of {{user}}, and no name is set for you: the model reads "{{user}}" as ` +
    "written. `user: YOUR NAME` in settings.yaml names you (SillyTavern's persona name)"
  );
}
