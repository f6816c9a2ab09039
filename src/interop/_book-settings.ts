/**
 * A book's own settings (card spec §8.1) and its character's name belong to that book, so an import
 * applies them and says what it applied:
 * - what is about each entry goes on its cards when the entry says nothing itself (_charbook.ts): the
 *   book's `scan_depth` becomes each card's `scan_messages`, `recursive_scanning: false` each card's
 *   `prevent_recursion: true`;
 * - what is about the whole vault (`token_budget`, the name `{{char}}` stands for: a V3 card's nickname,
 *   else its name) is written into a new settings.yaml when the book goes into a fresh vault (no
 *   settings.yaml yet, and no card but the examples `init` writes); into a vault that already has its
 *   own settings or cards, it is said as advice naming the setting (`budget_tokens:`, `char:`), since
 *   the person's settings are theirs. A budget with room for the book's entries, when they run long
 *   for ours and nothing chose one (`room`, from _disk.ts), is written or advised the same way.
 */
import fs from "node:fs";
import path from "node:path";
import {
  atomicCreate,
  BOOK_FILE,
  BOOKS_DIR,
  exampleIds,
  loadIndex,
  parseSettings,
  SETTINGS_FILE,
  type Vault,
  type VaultSettings,
} from "../vault/index.ts";
import type { BookSettings } from "./_charbook.ts";

/** Whether `vault` is fresh for a book's settings: no settings.yaml, no card but `init`'s examples. */
export function freshVault(vault: Vault): boolean {
  if (fs.existsSync(path.join(vault.root, SETTINGS_FILE))) return false;
  const examples = exampleIds(vault);
  return loadIndex(vault).cards.every((c) => examples.has(`${c.kind}/${c.key}`));
}

/**
 * The settings.yaml lines a book asks for (the vault-wide part of its settings), with why; those the
 * vault's settings already say (`have`: a book imported again) are not asked for again.
 */
function vaultLines(
  book: BookSettings,
  character: string | undefined,
  have: VaultSettings,
): [string, string][] {
  const lines: [string, string][] = [];
  if (book.tokenBudget !== undefined && book.tokenBudget > 0 && have.budgetTokens !== book.tokenBudget)
    lines.push([`budget_tokens: ${book.tokenBudget}`, "the book's token_budget"]);
  if (character !== undefined && have.char !== character)
    lines.push([`char: ${JSON.stringify(character)}`, "its character, for {{char}}"]);
  return lines;
}

/** What the settings.yaml of the folder `dir` says now (nothing, when it is missing or cannot be read). */
export function settingsIn(dir: string): VaultSettings {
  try {
    return parseSettings(fs.readFileSync(path.join(dir, SETTINGS_FILE), "utf8")).settings;
  } catch {
    return {};
  }
}

/**
 * Apply the vault-wide part of a book's settings (see the module comment): a new settings.yaml in a
 * fresh vault, else nothing. Returns one note per setting, saying what was done or what to set.
 */
export function applyBookSettings(
  vault: Vault,
  book: BookSettings,
  character: string | undefined,
  opts: { fresh: boolean; filename: string; room?: { line: string; why: string } },
): string[] {
  const notes: string[] = [];
  if (book.scanDepth !== undefined)
    notes.push(
      `book scan_depth ${book.scanDepth}: each card without a window of its own got scan_messages: ${book.scanDepth}`,
    );
  if (book.recursiveScanning === false)
    notes.push(
      "book recursive_scanning false: each card without prevent_recursion of its own got prevent_recursion: true",
    );
  const lines = vaultLines(book, character, opts.fresh ? {} : settingsIn(vault.root));
  if (opts.room) lines.push([opts.room.line, opts.room.why]);
  if (lines.length === 0) return notes;
  // A book of the vault (books/NAME/, with its book.yaml) has a settings.yaml of its own: named as the
  // person finds it from the vault.
  const inBook = fs.existsSync(path.join(vault.root, BOOK_FILE));
  const file = inBook ? `${BOOKS_DIR}/${path.basename(vault.root)}/${SETTINGS_FILE}` : SETTINGS_FILE;
  const text = [
    `# ${path.basename(opts.filename)}'s own settings, written by lorecards import into a new ${inBook ? "book" : "vault"}.`,
    "# This file is yours: change or remove any line (docs/CARDS.md, settings.yaml).",
    ...lines.map(([line, why]) => `${line.padEnd(28)} # ${why}`),
    "",
  ].join("\n");
  if (opts.fresh && atomicCreate(path.join(vault.root, SETTINGS_FILE), text)) {
    for (const [line, why] of lines) notes.push(`${why}: written to ${file} as ${line}`);
  } else {
    for (const [line, why] of lines) notes.push(`${why}: to follow it, set ${line} in ${file}`);
  }
  return notes;
}
