/**
 * Book entries ↔ the card model. Import: one CardDraft per entry, keyed from its title (legal file
 * names, repeats within one book numbered). Export: what a card says (its parsed fields, its public
 * text, its `st:` or `card:` fields) as the mapping's input. Private sections never leave here.
 */

import { keyFromTitle, numberedKey, publicText } from "../card/index.ts";
import { POSITIONS } from "../card/rules.ts";
import type { Card, CardDraft, Policy, PromptRole, Secondary } from "../card/types.ts";
import {
  type BookEntry,
  definedOnly,
  type EntryRules,
  isRecord,
  type Mapped,
  type Raw,
  RULE_FIELDS,
  stringList,
} from "./_model.ts";

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

/** The card's `secondary:` mapping (`not_all` is NOT ALL), or undefined when every list is empty. */
function secondaryFrontmatter(s: Secondary): Raw | undefined {
  const out: Raw = {};
  const names: [keyof Secondary, string][] = [
    ["all", "all"],
    ["any", "any"],
    ["not", "not"],
    ["notAll", "not_all"],
  ];
  for (const [name, field] of names) if (s[name].length > 0) out[field] = [...s[name]];
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
  if (entry.priority !== null) frontmatter.priority = entry.priority;
  frontmatter.enabled = entry.enabled;
  for (const name of RULE_FIELDS) {
    const value = entry.rules[name];
    if (value !== undefined) frontmatter[name] = Array.isArray(value) ? [...value] : value;
  }
  if (entry.decorators.length > 0) frontmatter.decorators = [...entry.decorators];
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

const POLICIES: readonly Policy[] = ["automatic", "always", "manual", "never"];
const ROLES: readonly PromptRole[] = ["system", "user", "assistant"];

const asBool = (v: unknown) => (typeof v === "boolean" ? v : undefined);
const asNumber = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const asCount = (v: unknown) => {
  const n = asNumber(v);
  return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
};
const asName =
  <T extends string>(names: readonly T[]) =>
  (v: unknown) =>
    typeof v === "string" ? names.find((n) => n === v.trim().toLowerCase()) : undefined;

const READ: { [K in keyof EntryRules]-?: (v: unknown) => EntryRules[K] } = {
  context: asName(POLICIES),
  case_sensitive: asBool,
  whole_words: asBool,
  regex: asBool,
  scan_messages: asCount,
  order: (v) => (Number.isInteger(asNumber(v)) ? (v as number) : undefined),
  group: (v) => {
    const names = stringList(v);
    return names.length > 0 ? names : undefined;
  },
  group_override: asBool,
  group_weight: (v) => ((asNumber(v) ?? 0) > 0 ? (v as number) : undefined),
  group_scoring: asBool,
  probability: (v) => {
    const n = asNumber(v);
    return n !== undefined && n >= 0 && n <= 100 ? n : undefined;
  },
  exclude_recursion: asBool,
  prevent_recursion: asBool,
  delay_until_recursion: asBool,
  sticky: asCount,
  cooldown: asCount,
  delay: asCount,
  ignore_budget: asBool,
  position: asName(POSITIONS),
  depth: asCount,
  role: asName(ROLES),
};

/**
 * The lorebook settings a card states itself, as it wrote them (a value the card parser would not
 * take either is left out). Decorators stay decorators: an export writes them back as they were.
 */
export function statedRules(frontmatter: Raw): EntryRules {
  const out: Raw = {};
  for (const name of RULE_FIELDS) {
    const value = frontmatter[name];
    if (value !== undefined && value !== null) out[name] = (READ[name] as (v: unknown) => unknown)(value);
  }
  // As the card parser reads it: `depth` alone means the at-depth place.
  if (out.depth !== undefined && out.position === undefined) out.position = "at_depth";
  return definedOnly(out) as EntryRules;
}

function decoratorLines(value: unknown): string[] | undefined {
  if (typeof value === "string") return value.split("\n");
  if (Array.isArray(value) && value.every((l) => typeof l === "string")) return [...value];
  return undefined;
}

/**
 * A parsed card as export input. Its keywords and aliases both become keys (they are both match terms
 * here); the body is the public text only. A card kept out of automatic recall (`context: manual` or
 * `never`, or `inject: false`) goes out disabled: a lorebook entry has no "only when asked".
 * A card imported before decorators had their own field keeps them under `card.decorators`; they
 * go back out the same way.
 */
export function cardToExport(card: Card): ExportCard {
  const hasPrivate = card.sections.some((s) => s.private);
  const text = hasPrivate ? publicText(card) : card.body;
  const keywords = [...card.keywords];
  for (const alias of card.aliases) if (!keywords.includes(alias)) keywords.push(alias);
  const fm = card.frontmatter;
  const rules = statedRules(fm);
  const policy = rules.context ?? (card.inject ? "automatic" : "manual");
  const held: Raw = isRecord(fm.card) ? { ...fm.card } : {};
  const legacy = decoratorLines(held.decorators);
  delete held.decorators;
  return {
    key: card.key,
    kind: card.kind,
    title: card.title,
    keywords,
    secondary: card.secondary,
    scanDepth: card.scanDepth,
    priority: "priority" in fm ? card.priority : null,
    enabled: card.enabled && policy !== "manual" && policy !== "never",
    body: bookBody(text),
    decorators: decoratorLines(fm.decorators) ?? legacy ?? [],
    rules,
    st: isRecord(fm.st) ? fm.st : {},
    card: held,
  };
}
