/**
 * The lorebook inside a Character Card (V2 `character_book`, V3 Lorebook, spec section 6.3/6.4) and
 * the standalone `lorebook_v3` export (6.5), both ways. keys → keywords, secondary_keys + selective →
 * secondary, name/comment → title, insertion_order (else priority) → priority, enabled, content → body.
 * Everything else (constant, case_sensitive, use_regex, position, id, extensions, V3 decorators) rides
 * along under `card:`.
 */

import {
  type BookEntry,
  emptySecondary,
  type FieldRule,
  isRecord,
  joinEntry,
  type Mapped,
  numberOr,
  type Raw,
  splitEntry,
  stringList,
} from "./_model.ts";
import { bodyOf, type SkippedEntry } from "./_st.ts";

/** SillyTavern stores its selectiveLogic in the entry's extensions; other writers leave it out. */
function logicOf(e: Raw): number {
  return isRecord(e.extensions) ? numberOr(e.extensions.selectiveLogic, 0) : 0;
}

function secondaryLogic(m: Mapped): { words: string[]; logic: number } {
  const { any, all, not } = m.secondary;
  if (any.length > 0 || (all.length === 0 && not.length === 0)) return { words: [...any], logic: 0 };
  if (all.length > 0) return { words: [...all], logic: 1 };
  return { words: [...not], logic: 2 };
}

function bucket(logic: number): "any" | "all" | "not" {
  return logic === 1 ? "all" : logic === 2 || logic === 3 ? "not" : "any";
}

export const BOOK_RULES: FieldRule[] = [
  {
    fields: ["keys"],
    read: (e) => ({ keywords: stringList(e.keys) }),
    write: (m) => ({ keys: [...m.keywords] }),
  },
  {
    // Spec 8.2.2/8.2.3: secondary keys count only when `selective` is true.
    fields: ["secondary_keys", "selective"],
    read: (e) => {
      const secondary = emptySecondary();
      if (e.selective !== true) return { secondary };
      const words = stringList(e.secondary_keys);
      secondary[bucket(logicOf(e))] = words;
      return { secondary };
    },
    write: (m) => ({ secondary_keys: secondaryLogic(m).words, selective: true }),
  },
  {
    fields: ["name", "comment"],
    read: (e) => ({ title: titleOf(e) }),
    write: (m) => ({ comment: m.title }),
  },
  {
    fields: ["content"],
    read: (e) => ({ body: bodyOf(e.content) }),
    write: (m) => ({ content: m.body }),
  },
  {
    fields: ["insertion_order"],
    read: (e) => ({ priority: numberOr(e.insertion_order, numberOr(e.priority, 100)) }),
    write: (m) => ({ insertion_order: m.priority }),
  },
  {
    // A character book has no per-entry scan depth outside decorators (kept verbatim).
    fields: [],
    read: () => ({ scanDepth: null }),
    write: () => ({}),
  },
  {
    fields: ["enabled"],
    read: (e) => ({ enabled: e.enabled !== false }),
    write: (m) => ({ enabled: m.enabled }),
  },
];

function titleOf(e: Raw): string {
  for (const v of [e.name, e.comment]) if (typeof v === "string" && v.trim() !== "") return v.trim();
  const first = stringList(e.keys)[0];
  if (first !== undefined) return first;
  return `entry ${typeof e.id === "number" || typeof e.id === "string" ? e.id : "?"}`;
}

/**
 * Spec 9.1: decorators are `@@name value` lines at the very start of the content. They are kept
 * verbatim under `card.decorators` and left out of the body, which must never carry them into a prompt.
 */
export function splitDecorators(content: string): { decorators: string[]; rest: string } {
  const lines = content.split("\n");
  let n = 0;
  while (n < lines.length && lines[n]!.startsWith("@@")) n++;
  if (n === 0) return { decorators: [], rest: content };
  return { decorators: lines.slice(0, n), rest: lines.slice(n).join("\n") };
}

export interface ReadBookOptions {
  /** V3 content may open with decorators; V2 content is taken literally. */
  v3: boolean;
}

export interface LorebookRead {
  name?: string;
  entries: BookEntry[];
  skipped: SkippedEntry[];
}

export function readLorebook(book: Raw, opts: ReadBookOptions): LorebookRead {
  const list = Array.isArray(book.entries) ? book.entries : [];
  const entries: BookEntry[] = [];
  const skipped: SkippedEntry[] = [];
  list.forEach((raw, index) => {
    if (!isRecord(raw)) {
      skipped.push({ title: `entry ${index}`, reason: "not a JSON object" });
      return;
    }
    let entry: Raw = raw;
    if (opts.v3 && typeof raw.content === "string") {
      const { decorators, rest } = splitDecorators(raw.content);
      if (decorators.length > 0) entry = { ...raw, content: rest, decorators };
    }
    entries.push(splitEntry(BOOK_RULES, entry));
  });
  return { name: typeof book.name === "string" ? book.name : undefined, entries, skipped };
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
  const defaults: Raw = { extensions: {}, use_regex: false, constant: false, position: "before_char" };
  const out = joinEntry(BOOK_RULES, card, { ...defaults, ...card.card, id });
  const { logic } = secondaryLogic(card);
  const ext = isRecord(out.extensions) ? out.extensions : {};
  // 2 and 3 both read as `not`: a kept 3 stays 3 while the card still says `not`.
  const kept = typeof ext.selectiveLogic === "number" ? ext.selectiveLogic : 0;
  if (bucket(kept) !== bucket(logic)) out.extensions = { ...ext, selectiveLogic: logic };
  // The decorator lines exactly as they were: repeats are meaningful (spec 9.6.1 accumulates them).
  const decorators = Array.isArray(out.decorators)
    ? out.decorators.filter((d): d is string => typeof d === "string")
    : [];
  delete out.decorators;
  if (decorators.length > 0) {
    const body = String(out.content ?? "");
    out.content = body === "" ? decorators.join("\n") : `${decorators.join("\n")}\n${body}`;
  }
  return out;
}

/** Spec 13.4: a V2 entry drops decorators and use_regex, and its id must be an integer. */
export function toV2Entry(entry: Raw, index: number): Raw {
  const { use_regex: _regex, ...rest } = entry;
  const content = typeof rest.content === "string" ? splitDecorators(rest.content).rest : rest.content;
  const id = typeof rest.id === "number" && Number.isInteger(rest.id) ? rest.id : index;
  return { ...rest, id, content };
}
