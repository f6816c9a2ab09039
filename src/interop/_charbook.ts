/**
 * The lorebook inside a Character Card (V2 `character_book`, V3 Lorebook, spec section 6.3/6.4) and
 * the standalone `lorebook_v3` export (6.5), both ways, through the table in _book-rules.ts. An entry
 * is mapped flat (`extensions.position` is a field like `position`) and its leftover extensions are
 * nested again; the book's own settings (scan depth, token budget, recursion) are reported.
 */

import { splitDecorators } from "../card/decorators.ts";
import { BOOK_RULES, X } from "./_book-rules.ts";
import {
  type BookEntry,
  flatten,
  isRecord,
  joinEntry,
  type Mapped,
  nest,
  type Raw,
  splitEntry,
} from "./_model.ts";
import type { SkippedEntry } from "./_st.ts";
import { bool, whole } from "./_values.ts";

/** One book entry mapped: flattened, split, its leftover extensions nested again. */
export function splitBookEntry(raw: Raw): BookEntry {
  const entry = splitEntry(BOOK_RULES, flatten(raw, X));
  return { ...entry, foreign: nest(entry.foreign, X) };
}

/** What a book says for the whole vault rather than one card (spec 6.3), reported by the import. */
export interface BookSettings {
  name?: string;
  scanDepth?: number;
  tokenBudget?: number;
  recursiveScanning?: boolean;
}

export interface LorebookRead {
  name?: string;
  entries: BookEntry[];
  skipped: SkippedEntry[];
  settings: BookSettings;
}

export function bookSettings(book: Raw): BookSettings {
  const settings: BookSettings = {};
  if (typeof book.name === "string" && book.name !== "") settings.name = book.name;
  const depth = whole(book.scan_depth);
  if (depth !== undefined) settings.scanDepth = depth;
  const budget = whole(book.token_budget);
  if (budget !== undefined) settings.tokenBudget = budget;
  const recursive = bool(book.recursive_scanning);
  if (recursive !== undefined) settings.recursiveScanning = recursive;
  return settings;
}

/**
 * What the book's own settings (spec 8.1) say for one of its entries, where the entry says nothing
 * itself: without recursive scanning (8.1.5) its text reaches no other card, unless the entry says
 * `prevent_recursion: false` itself; the book's scan depth (8.1.3, in messages) is its window.
 */
function withBookSettings(entry: BookEntry, raw: Raw, settings: BookSettings): BookEntry {
  const rules = { ...entry.rules };
  const own = isRecord(raw.extensions) ? raw.extensions.prevent_recursion : undefined;
  if (settings.recursiveScanning === false && rules.prevent_recursion === undefined && own !== false)
    rules.prevent_recursion = true;
  if (settings.scanDepth !== undefined && rules.scan_messages === undefined && entry.scanDepth === null)
    rules.scan_messages = settings.scanDepth;
  return { ...entry, rules };
}

export function readLorebook(book: Raw): LorebookRead {
  const list = Array.isArray(book.entries) ? book.entries : [];
  const settings = bookSettings(book);
  const entries: BookEntry[] = [];
  const skipped: SkippedEntry[] = [];
  list.forEach((raw, index) => {
    if (!isRecord(raw)) {
      skipped.push({ title: `entry ${index}`, reason: "not a JSON object" });
      return;
    }
    entries.push(withBookSettings(splitBookEntry(raw), raw, settings));
  });
  return { name: settings.name, entries, skipped, settings };
}

/** One card ready for export into a character book: what it says plus its `card:` fields. */
export interface BookSource extends Mapped {
  card: Raw;
}

/** A kept entry id a card came with (spec 8.2.11: integer, or in V3 a string). */
function keptId(card: BookSource): number | string | undefined {
  const id = card.card.id;
  return (typeof id === "number" && Number.isInteger(id)) || typeof id === "string" ? id : undefined;
}

/**
 * V3 entries (spec 6.4 LorebookEntry); `toV2Entry` derives the backfill from these. Cards that came
 * from a book go back in the order of their ids, so a book comes back in its own order; ids stay unique
 * (a repeat, say from two imported books, gets the next free number, as a new card does).
 */
export function writeLorebookEntries(cards: BookSource[]): Raw[] {
  const ordered = cards
    .map((card, index) => ({ card, index, id: keptId(card) }))
    .sort((a, b) => idRank(a.id) - idRank(b.id) || a.index - b.index);
  const used = new Set(ordered.map((o) => o.id).filter((id) => id !== undefined));
  const taken = new Set<number | string>();
  let next = 0;
  return ordered.map(({ card, id }) => {
    if (id === undefined || taken.has(id)) {
      while (used.has(next) || taken.has(next)) next++;
      id = next;
    }
    taken.add(id);
    return writeEntry(card, id);
  });
}

/** Integer ids first, by value; string ids and new cards after, in vault order. */
function idRank(id: number | string | undefined): number {
  return typeof id === "number" ? id : Number.POSITIVE_INFINITY;
}

function writeEntry(card: BookSource, id: number | string): Raw {
  const defaults: Raw = { extensions: {} };
  const foreign = flatten({ ...defaults, ...card.card, id }, X);
  return nest(joinEntry(BOOK_RULES, card, foreign), X);
}

/** Spec 13.4: a V2 entry drops decorators and use_regex, and its id must be an integer. */
export function toV2Entry(entry: Raw, index: number): Raw {
  const { use_regex: _regex, ...rest } = entry;
  const content = typeof rest.content === "string" ? splitDecorators(rest.content).rest : rest.content;
  const id = typeof rest.id === "number" && Number.isInteger(rest.id) ? rest.id : index;
  return { ...rest, id, content };
}
