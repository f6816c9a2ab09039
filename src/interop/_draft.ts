/**
 * Book entries ↔ the card model. Import: one CardDraft per entry, keyed from its title (legal file
 * names, repeats within one book numbered). Export: what a card says (its parsed fields, its public
 * text, its `st:` or `card:` fields) as the mapping's input. Private sections never leave here.
 */

import { keyFromTitle, numberedKey, publicText } from "../card/index.ts";
import type { Card, CardDraft, Secondary } from "../card/types.ts";
import { type BookEntry, isRecord, type Mapped, type Raw } from "./_model.ts";

export interface DraftOptions {
  kind: string;
  /** Which frontmatter key carries the foreign fields. */
  namespace: "st" | "card";
  /** Keys already used (case-folded), e.g. by other entries of the same import. */
  taken?: Set<string>;
}

/**
 * A key from the title; a repeat (ignoring case, as macOS and Windows do) gets " 2", " 3", … The
 * numbering goes on from the last number given to that name (`next`), so a book of one title repeated
 * n times costs n steps, not n².
 */
export function uniqueKey(title: string, taken: Set<string>, next = new Map<string, number>()): string {
  const base = keyFromTitle(title);
  const folded = base.toLowerCase();
  let key = base;
  let n = next.get(folded) ?? 2;
  if (taken.has(folded)) {
    do key = numberedKey(base, n++);
    while (taken.has(key.toLowerCase()));
    next.set(folded, n);
  }
  taken.add(key.toLowerCase());
  return key;
}

function secondaryFrontmatter(s: Secondary): Partial<Secondary> | undefined {
  const out: Partial<Secondary> = {};
  for (const name of ["all", "any", "not"] as const) if (s[name].length > 0) out[name] = [...s[name]];
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The body as the card file will hold it: a card file ends with a newline, so one is always added
 * here and taken off again on export, which keeps content with or without a final newline exact.
 */
function fileBody(body: string): string {
  return body === "" ? "" : `${body}\n`;
}

function bookBody(fileText: string): string {
  return fileText.endsWith("\n") ? fileText.slice(0, -1) : fileText;
}

export function entryToDraft(entry: BookEntry, key: string, opts: DraftOptions): CardDraft {
  const frontmatter: Raw = { kind: opts.kind, title: entry.title, keywords: [...entry.keywords] };
  const secondary = secondaryFrontmatter(entry.secondary);
  if (secondary) frontmatter.secondary = secondary;
  if (entry.scanDepth !== null) frontmatter.scan_depth = entry.scanDepth;
  frontmatter.priority = entry.priority;
  frontmatter.enabled = entry.enabled;
  frontmatter[opts.namespace] = entry.foreign;
  return { kind: opts.kind, key, frontmatter, body: fileBody(entry.body) };
}

export function entriesToDrafts(entries: BookEntry[], opts: DraftOptions): CardDraft[] {
  const taken = opts.taken ?? new Set<string>();
  const next = new Map<string, number>();
  return entries.map((entry) => entryToDraft(entry, uniqueKey(entry.title, taken, next), opts));
}

/** What the mapping needs of a card for export. */
export interface ExportCard extends Mapped {
  key: string;
  kind: string;
  st: Raw;
  card: Raw;
}

/**
 * A parsed card as export input. Its keywords and aliases both become keys (they are both match terms
 * here); the body is the public text only. A card with `inject: false` is kept out of automatic recall
 * here, and a lorebook only has automatic recall, so it goes out disabled.
 */
export function cardToExport(card: Card): ExportCard {
  const hasPrivate = card.sections.some((s) => s.private);
  const text = hasPrivate ? publicText(card) : card.body;
  const keywords = [...card.keywords];
  for (const alias of card.aliases) if (!keywords.includes(alias)) keywords.push(alias);
  return {
    key: card.key,
    kind: card.kind,
    title: card.title,
    keywords,
    secondary: card.secondary,
    scanDepth: card.scanDepth,
    priority: card.priority,
    enabled: card.enabled && card.inject,
    body: bookBody(text),
    st: isRecord(card.frontmatter.st) ? card.frontmatter.st : {},
    card: isRecord(card.frontmatter.card) ? card.frontmatter.card : {},
  };
}
