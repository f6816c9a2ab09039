/**
 * The only part of interop that touches a vault. An import is all or nothing, even across a crash:
 * under the vault lock, its card files are staged and then moved into place by the vault's batch placement (`vault/_batch.ts`), and
 * whatever a killed import left behind is settled before anything else writes or reads
 * (`vault/_settle.ts`). An export reads each card file once.
 */

import fs from "node:fs";
import path from "node:path";
import {
  alwaysOnWarning,
  keyProblem,
  kindByName,
  parseCard,
  publicTextOf,
  rulesOf,
  serializeParsedCard,
} from "../card/index.ts";
import type { Card, CardMeta } from "../card/types.ts";
import { describeError } from "../errors.ts";
import {
  BOOK_FILE,
  cardPath,
  type KnownFile,
  linkBelow,
  loadIndex,
  type Placement,
  parseBookFile,
  placeAll,
  readNoFollow,
  settleImports,
  type Vault,
  withSettledLock,
} from "../vault/index.ts";
import { type ImportWarning, vetImport } from "../vet/index.ts";
import { applyBookSettings, freshVault } from "./_book-settings.ts";
import type { BookSettings } from "./_charbook.ts";
import type { ZipLimits } from "./_charx.ts";
import { cardToExport, entriesToDrafts } from "./_draft.ts";
import { type BaseCardFile, type ExportFile, type ExportFormat, renderBook } from "./_export.ts";
import { cutWarnings } from "./_fit.ts";
import { keptCard } from "./_kept-card.ts";
import { parseBook, type SourceFormat } from "./_parse.ts";
import type { SkippedEntry } from "./_st.ts";

export interface ImportOptions {
  /** The kind every imported card gets (default `entry`). */
  kind?: string;
  /** Replace cards that already exist (default: keep them). */
  force?: boolean;
  /** Names the input in error messages. */
  filename: string;
  /** Called as cards are written: done of total. */
  onProgress?: (done: number, total: number) => void;
  zipLimits?: Partial<ZipLimits>;
  /**
   * The character budget the book's cards will meet when no settings.yaml chose one (`importIntoBook`
   * asks): an import of long entries into a fresh book writes one with room for them in its
   * settings.yaml, or advises it in a book that has settings or cards already. Undefined: nothing is said.
   */
  room?: { budget: number };
}

export interface ImportResult {
  format: SourceFormat;
  kind: string;
  created: number;
  kept: number;
  overwritten: number;
  skipped: SkippedEntry[];
  warnings: string[];
  /** The book's own settings (spec 8.1): applied on its cards, or in settings.yaml (_book-settings.ts). */
  book: BookSettings;
  /** The character's name, when a character card carried the book (for `char:` in settings.yaml). */
  character?: string;
  /** One line per book setting: what was applied, or which setting to set to follow it (_book-settings.ts). */
  notes: string[];
  /**
   * The write checks on the cards written (README "Write checks"): an import never refuses on them,
   * the book being the person's own, so a priority cap it overfills is a warning here too.
   */
  checks: ImportWarning[];
}

/**
 * The card file names of one kind's directory (without `.md`), in code-unit order. Links are not card
 * files, and a kind directory that is a link has none (the vault never follows links).
 */
function cardKeys(vault: Vault, kind: string): { dir: string; keys: string[] } {
  const dir = path.dirname(cardPath(vault, kind, "probe"));
  if (linkBelow(vault, dir) !== null) return { dir, keys: [] };
  let names: fs.Dirent[] = [];
  try {
    names = fs.readdirSync(dir, { withFileTypes: true });
  } catch {}
  const md = names.filter((d) => d.isFile() && d.name.endsWith(".md") && !d.name.startsWith("."));
  return { dir, keys: md.map((d) => d.name.slice(0, -3)).sort() };
}

export async function importBook(
  vault: Vault,
  input: Uint8Array | unknown,
  opts: ImportOptions,
): Promise<ImportResult> {
  const book = await parseBook(input, { filename: opts.filename, zipLimits: opts.zipLimits });
  const { name: kind, dir } = kindByName(vault.kinds, opts.kind ?? "entry");
  const drafts = entriesToDrafts(book.entries, { kind, namespace: book.namespace });
  const result: ImportResult = {
    format: book.format,
    kind,
    created: 0,
    kept: 0,
    overwritten: 0,
    skipped: [...book.skipped],
    warnings: [...book.warnings, ...cutWarnings(book.entries)],
    book: book.settings,
    notes: [],
    checks: [],
  };
  const written = new Set<string>();
  if (book.character !== undefined) result.character = book.character;
  const fresh = freshVault(vault);
  const known = new Map<string, KnownFile>();
  await withSettledLock(vault, async () => {
    // By case-folded key: macOS and Windows fold case.
    const existing = new Map(cardKeys(vault, kind).keys.map((k) => [k.toLowerCase(), k]));
    const plan: Placement[] = [];
    for (const draft of drafts) {
      const found = existing.get(draft.key.toLowerCase());
      if (found !== undefined && !opts.force) {
        result.kept++;
        continue;
      }
      const key = found ?? draft.key;
      written.add(`${kind}/${key}`);
      const rel = dir === "" ? `${key}.md` : `${dir}/${key}.md`;
      plan.push({
        // Made while the cards before it are being written (vault/_batch.ts): as slow as writing them.
        // With the card it parses as, which the index then takes rather than reading the file again.
        text: () => serializeParsedCard(draft, { kind, key, path: rel, kinds: vault.kinds }),
        target: cardPath(vault, kind, key),
        replaces: found !== undefined,
      });
      if (found !== undefined) result.overwritten++;
      else result.created++;
    }
    // The step names the file it read: the editor filters cards by the book they came from.
    const record = {
      writer: "import",
      action: "import",
      step: { note: path.basename(opts.filename) },
    } as const;
    if (plan.length > 0) await placeAll(vault, plan, opts.onProgress, record, [], known);
  });
  // The index takes the cards just written as they were made (vault/_compare.ts KnownFile).
  const all = indexedCards(vault, known);
  result.checks = all === undefined ? [] : vetImport(vault, written, all);
  // A book that carries a budget of its own (a card's token_budget) has it in settings.yaml now.
  const own = book.settings.tokenBudget !== undefined && book.settings.tokenBudget > 0;
  const room = all && opts.room !== undefined && !own ? roomFor(all, written, opts.room.budget) : undefined;
  result.notes = applyBookSettings(vault, book.settings, book.character, {
    fresh,
    filename: opts.filename,
    ...(room && { room }),
  });
  const large = all && alwaysOnWarning(all, (card) => publicTextOfFile(vault, card.path));
  if (large) result.notes.push(large);
  return result;
}

/**
 * Entries written for SillyTavern's budget (a share of the context, often thousands of tokens) run long
 * for ours of 800 characters, which sends the top card whole and stops at the first that would
 * overflow: a new user saw one entry a turn out of several named. When most of the imported cards
 * that fire on their words are longer than half the budget, the budget with room for about four of
 * them (the median one), and why; undefined when they fit.
 */
function roomFor(
  all: readonly CardMeta[],
  written: ReadonlySet<string>,
  budget: number,
): { line: string; why: string } | undefined {
  // The index's count of each card's public characters: a large import is not read a second time.
  const sizes = all
    .filter((c) => written.has(`${c.kind}/${c.key}`) && c.enabled && c.inject)
    .filter((c) => {
      const rules = rulesOf(c);
      return rules.policy === "automatic" && !rules.ignoreBudget;
    })
    .map((c) => c.publicChars)
    .sort((a, b) => a - b);
  const long = sizes.filter((n) => n > budget / 2).length;
  if (sizes.length < 2 || long * 2 <= sizes.length) return undefined;
  const median = sizes[Math.floor(sizes.length / 2)]!;
  const room = Math.ceil((median * 4) / 500) * 500;
  return {
    line: `budget: ${room}`,
    why:
      `${long} of its ${sizes.length} entries that fire on their words are over ${budget / 2} characters, ` +
      `so with the default budget of ${budget} about one would go in a turn; ${room} has room for about four`,
  };
}

/**
 * Every card of the vault from its index, brought up to date; undefined when the index cannot be read:
 * the book is already in by then, and such a vault costs the warnings, never the import.
 */
function indexedCards(vault: Vault, known: ReadonlyMap<string, KnownFile>): readonly CardMeta[] | undefined {
  try {
    return loadIndex(vault, { known }).cards;
  } catch {
    return undefined;
  }
}

/** A card file's public text, never through a link; undefined when it cannot be read. */
function publicTextOfFile(vault: Vault, rel: string): string | undefined {
  try {
    return publicTextOf(readNoFollow(vault, path.join(vault.root, rel)), vault.kinds);
  } catch {
    return undefined;
  }
}

export interface ExportOptions {
  base?: BaseCardFile;
  bookName?: string;
}

/** One card file of the vault as read: its parsed card, its text, and where it is. */
export interface VaultCardFile {
  card: Card;
  text: string;
  /** Absolute path of the file. */
  file: string;
}

/**
 * Every card of the vault (kinds in table order, then file names, as the index lists them), each file
 * read and parsed once. A file that does not parse is reported in `skipped`.
 */
export function readVaultCards(vault: Vault): { files: VaultCardFile[]; skipped: SkippedEntry[] } {
  const files: VaultCardFile[] = [];
  const skipped: SkippedEntry[] = [];
  for (const kind of vault.kinds.kinds) {
    const { dir, keys } = cardKeys(vault, kind.name);
    const prefix = kind.dir === "" ? "" : `${kind.dir}/`;
    for (const key of keys) {
      const rel = `${prefix}${key}.md`;
      try {
        const problem = keyProblem(key);
        if (problem !== null) throw new Error(`the file name is not a legal card name: ${problem}`);
        const file = path.join(dir, `${key}.md`);
        const text = readNoFollow(vault, file, false);
        files.push({
          card: parseCard(text, { kind: kind.name, key, path: rel, kinds: vault.kinds }),
          text,
          file,
        });
      } catch (err) {
        // The parser names the file itself and may point at the line below: one line is enough here.
        const first = describeError(err).split("\n")[0]!;
        skipped.push({
          title: rel,
          reason: first.startsWith(`${rel}: `) ? first.slice(rel.length + 2) : first,
        });
      }
    }
  }
  return { files, skipped };
}

/** Every card of the vault as one export file; a card file that does not parse is left out, listed in `skipped`. */
/** A book's title (its book.yaml's, else its folder's name), as an export names the lorebook; none for a vault. */
function bookTitle(root: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(root, BOOK_FILE), "utf8");
  } catch {
    return undefined;
  }
  return parseBookFile(text, path.basename(root).toLowerCase()).title;
}

export async function exportBook(
  vault: Vault,
  format: ExportFormat,
  opts: ExportOptions = {},
): Promise<ExportFile> {
  settleImports(vault);
  const { files, skipped } = readVaultCards(vault);
  // A character's book exported as a card starts from her own card, kept when it was imported.
  const base = opts.base ?? (format === "st" || format === "lorebook_v3" ? undefined : keptCard(vault.root));
  const file = await renderBook(
    files.map((f) => cardToExport(f.card)),
    format,
    { ...opts, base, bookName: opts.bookName ?? bookTitle(vault.root) },
  );
  return { ...file, skipped };
}
