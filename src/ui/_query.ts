// What the card list shows: the cards that pass the search and the filters, in the order chosen. Pure
// functions over the rows, so a keystroke costs one pass over the cards already in memory (a few
// milliseconds for ten thousand), never a request; the server's text search joins in when it answers.
import type { CardFacts, ListItem } from "../api/types.ts";

/**
 * A card of the list with what the list computes once per load. An archived card has only the fields
 * every card has (`ArchivedItem`); the rest read as missing.
 */
export type Row = ListItem & {
  id: string;
  /** Title, keywords, aliases and tags, lower-cased: what a keystroke searches. */
  hay: string;
  /** The title as sorted: accents and letter case aside (a string compare, which ten thousand rows afford). */
  sortKey: string;
  facts?: CardFacts;
  archived?: boolean;
};

export const SORTS: Record<string, string> = {
  title: "Title",
  name: "File name",
  order: "Lorebook order",
  priority: "Priority, highest first",
  tokens: "Size, largest first",
  edited: "Last edited",
  fired: "Most often sent",
  never: "Never sent first",
};
export type Sort = keyof typeof SORTS;

export interface Filters {
  kind: string;
  policy: string;
  /** "" any, "on" enabled only, "off" disabled only. */
  enabled: string;
  warnings: boolean;
  book: string;
  tag: string;
}

export const NO_FILTERS: Filters = { kind: "", policy: "", enabled: "", warnings: false, book: "", tag: "" };

export function activeFilters(f: Filters): number {
  return [f.kind, f.policy, f.enabled, f.warnings, f.book, f.tag].filter(Boolean).length;
}

/** The answer's item made a row in place (a copy of ten thousand items costs a frame or two). */
export function rowOf(item: ListItem, facts?: CardFacts): Row {
  const words = [item.title, ...(item.keywords ?? []), ...(item.aliases ?? []), ...(item.tags ?? [])];
  const row = item as Row;
  row.id = `${item.kind}/${item.key}`;
  row.hay = words.join("\n").toLowerCase();
  row.sortKey = folded(item.title);
  row.facts = facts;
  return row;
}

/** The query's words, lower-cased. */
export function wordsOf(q: string): string[] {
  return [...new Set(q.normalize("NFKC").toLowerCase().split(/\s+/).filter(Boolean))];
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byTitle = (a: Row, b: Row) => byString(a.sortKey, b.sortKey) || byString(a.key, b.key);
const nullsLast = (a: number | null | undefined, b: number | null | undefined) =>
  (a ?? Number.POSITIVE_INFINITY) - (b ?? Number.POSITIVE_INFINITY);

const COMPARE: Record<Sort, (a: Row, b: Row) => number> = {
  title: byTitle,
  name: (a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  order: (a, b) => nullsLast(a.order, b.order) || b.priority - a.priority || byTitle(a, b),
  priority: (a, b) => b.priority - a.priority || byTitle(a, b),
  tokens: (a, b) => (b.facts?.tokens ?? b.chars / 4) - (a.facts?.tokens ?? a.chars / 4) || byTitle(a, b),
  // ISO 8601 times in UTC sort as strings.
  edited: (a, b) =>
    (b.mtime ?? "") > (a.mtime ?? "") ? 1 : (b.mtime ?? "") < (a.mtime ?? "") ? -1 : byTitle(a, b),
  fired: (a, b) => (b.facts?.fired ?? 0) - (a.facts?.fired ?? 0) || byTitle(a, b),
  never: (a, b) => Number((a.facts?.fired ?? 0) > 0) - Number((b.facts?.fired ?? 0) > 0) || byTitle(a, b),
};

export function sortRows(rows: readonly Row[], sort: Sort): Row[] {
  return [...rows].sort(COMPARE[sort] ?? byTitle);
}

/** A title or query as titles sort: accents and letter case aside. */
const folded = (text: string) => text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();

/**
 * `rows` (already in the chosen order) with the card the search names first: a title that is the
 * query, then titles that start with it, then the rest, each in the order they had. "Thalion" opens on
 * the card Thalion, not on "Thalion的领域" that sorts before it.
 */
export function namedFirst(rows: readonly Row[], query: string): Row[] {
  const q = folded(query.trim());
  if (q === "") return [...rows];
  // One pass, no sort: a keystroke over ten thousand rows stays a pass over them.
  const named: Row[] = [];
  const starting: Row[] = [];
  const rest: Row[] = [];
  for (const r of rows) (r.sortKey === q ? named : r.sortKey.startsWith(q) ? starting : rest).push(r);
  return [...named, ...starting, ...rest];
}

export interface Query {
  words: string[];
  /** The server's answer for these words (every field and the text), once it came; else undefined. */
  found?: ReadonlySet<string>;
}

/** Whether a row passes the filters and the search. */
export function passes(row: Row, f: Filters, q: Query): boolean {
  if (f.kind && row.kind !== f.kind) return false;
  if (f.policy && row.policy !== f.policy) return false;
  if (f.enabled === "on" && row.enabled === false) return false;
  if (f.enabled === "off" && row.enabled !== false) return false;
  if (f.warnings && !(row.warnings > 0)) return false;
  if (f.book && row.facts?.book !== f.book) return false;
  if (f.tag && !(row.tags ?? []).includes(f.tag)) return false;
  if (q.words.length === 0) return true;
  if (q.found) return q.found.has(row.id);
  return q.words.every((w) => row.hay.includes(w));
}

/** Every tag in use, sorted. */
export function tagsOf(rows: readonly Row[]): string[] {
  return [...new Set(rows.flatMap((r) => r.tags ?? []))].sort(byString);
}
