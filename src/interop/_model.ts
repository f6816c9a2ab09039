/**
 * The in-between shape every format maps to and from, and the one trick that makes round trips exact:
 * a mapped field whose export would not give back the value it was imported from keeps that original
 * value beside the foreign fields, and export uses it again as long as the card still says the same
 * thing. A card edited in the vault exports its new value instead.
 */

import type { Policy, PromptRole, Secondary } from "../card/types.ts";
import { LoreError } from "../errors.ts";
import { fitToCard } from "./_fit.ts";

/**
 * The lorebook settings an entry states, under their card frontmatter names (README "Lorebook
 * fields"). A name left out is not stated (the card's default, or the source's `null` = "use the
 * global setting"), so an entry that says nothing special adds nothing to its card.
 */
export interface EntryRules {
  context?: Policy;
  case_sensitive?: boolean;
  whole_words?: boolean;
  regex?: boolean;
  scan_messages?: number;
  order?: number;
  group?: string[];
  group_override?: boolean;
  group_weight?: number;
  group_scoring?: boolean;
  probability?: number;
  exclude_recursion?: boolean;
  prevent_recursion?: boolean;
  delay_until_recursion?: boolean;
  sticky?: number;
  cooldown?: number;
  delay?: number;
  ignore_budget?: boolean;
  position?: string;
  depth?: number;
  role?: PromptRole;
}

/** The frontmatter names of EntryRules, in the order a card file lists them. */
export const RULE_FIELDS = [
  "context",
  "case_sensitive",
  "whole_words",
  "regex",
  "scan_messages",
  "order",
  "group",
  "group_override",
  "group_weight",
  "group_scoring",
  "probability",
  "exclude_recursion",
  "prevent_recursion",
  "delay_until_recursion",
  "sticky",
  "cooldown",
  "delay",
  "ignore_budget",
  "position",
  "depth",
  "role",
] as const satisfies readonly (keyof EntryRules)[];

/** What lorecards understands of one lorebook entry; everything else rides along in `foreign`. */
export interface Mapped {
  title: string;
  keywords: string[];
  secondary: Secondary;
  /** In turns (the card's old `scan_depth`); imports state `scan_messages` instead, so null there. */
  scanDepth: number | null;
  /** The card's `priority` (CCv3 `priority`); null when the entry states none. */
  priority: number | null;
  enabled: boolean;
  /** The card body: the entry's content, without decorators. */
  body: string;
  /** The V3 decorator lines that opened the content, verbatim and in order. */
  decorators: string[];
  rules: EntryRules;
}

/** One imported entry: what we understand plus every other field of the source, verbatim. */
export interface BookEntry extends Mapped {
  foreign: Record<string, unknown>;
  /** What was cut to fit the card limits ("title cut to 200 characters"); absent when nothing was. */
  cut?: string[];
}

/** A loosely typed source object (one ST entry, one character book entry). */
export type Raw = Record<string, unknown>;

/** A rule's reading: some of the Mapped fields, and some of the rules. */
export type MappedPart = Partial<Omit<Mapped, "rules">> & { rules?: EntryRules };

/**
 * One row of a mapping table: the source fields it owns, how they become mapped values and back.
 * `read` sees the whole entry (a fallback may look at a field another rule keeps, like ST `depth`).
 */
export interface FieldRule {
  fields: string[];
  read(entry: Raw): MappedPart;
  write(mapped: Mapped): Raw;
}

export function emptySecondary(): Secondary {
  return { all: [], any: [], not: [], notAll: [] };
}

/** A Mapped that states nothing but its words: what a card with no lorebook settings exports. */
export function plainMapped(over: Partial<Mapped> = {}): Mapped {
  return {
    title: "",
    keywords: [],
    secondary: emptySecondary(),
    scanDepth: null,
    priority: null,
    enabled: true,
    body: "",
    decorators: [],
    rules: {},
    ...over,
  };
}

/** Applies every rule; the rules together must produce a whole Mapped (their `rules` merged). */
export function readAll(rules: FieldRule[], entry: Raw): Mapped {
  const out = plainMapped();
  for (const rule of rules) {
    const { rules: part, ...rest } = rule.read(entry);
    Object.assign(out, rest);
    if (part) Object.assign(out.rules, definedOnly(part));
  }
  return out;
}

/** Drops undefined values, so "not stated" is one thing (an absent key). */
export function definedOnly<T extends object>(value: T): T {
  const out = {} as T;
  for (const [k, v] of Object.entries(value)) if (v !== undefined) (out as Raw)[k] = v;
  return out;
}

/** One rule's reading, cut to the card limits: what a card made from it will say. */
function readFitted(rule: FieldRule, entry: Raw): MappedPart {
  return fitToCard(rule.read(entry), () => {});
}

/**
 * Whether a rule's reading says what the card says: every Mapped field it returns is equal, and so is
 * every setting it names. A rule names each setting it covers even when not stated (`undefined`), so
 * a card that now states one its kept original did not is told apart.
 */
function agrees(part: MappedPart, mapped: Mapped): boolean {
  const { rules: settings, ...rest } = part;
  for (const k of Object.keys(rest) as (keyof Mapped)[]) {
    if (!sameValue((rest as Raw)[k], mapped[k])) return false;
  }
  const stated = mapped.rules as Raw;
  return Object.entries(settings ?? {}).every(([k, v]) => sameValue(v, stated[k]));
}

/**
 * Import: the mapped values plus the foreign fields (every field no rule owns, and the originals of
 * any rule whose export would not reproduce them). Fields absent from the source are not compared,
 * so an export may add a default the source left out, but never changes a value it had.
 */
export function splitEntry(rules: FieldRule[], entry: Raw): BookEntry {
  const cut: string[] = [];
  const mapped = fitToCard(readAll(rules, entry), (what) => cut.push(what));
  const owned = new Set(rules.flatMap((r) => r.fields));
  const foreign: Raw = {};
  for (const [name, value] of Object.entries(entry)) if (!owned.has(name)) foreign[name] = value;
  for (const rule of rules) {
    const back = rule.write(mapped);
    const present = rule.fields.filter((f) => f in entry);
    if (present.some((f) => !sameValue(back[f], entry[f]))) {
      for (const f of present) foreign[f] = entry[f];
    }
  }
  return cut.length > 0 ? { ...mapped, foreign, cut } : { ...mapped, foreign };
}

/**
 * Export: foreign fields first, then each rule's fields, from the kept originals when reading them
 * back still gives what the card says now, otherwise freshly written from the card.
 */
export function joinEntry(rules: FieldRule[], mapped: Mapped, foreign: Raw): Raw {
  const owned = new Set(rules.flatMap((r) => r.fields));
  const out: Raw = {};
  for (const [name, value] of Object.entries(foreign)) if (!owned.has(name)) out[name] = value;
  const written = rules.map((rule) => rule.write(mapped));
  const fresh: Raw = Object.assign({}, ...written);
  rules.forEach((rule, i) => {
    Object.assign(out, written[i]);
    const kept = rule.fields.filter((f) => f in foreign);
    if (kept.length === 0) return;
    const candidate: Raw = { ...foreign, ...fresh };
    for (const f of kept) candidate[f] = foreign[f];
    if (agrees(readFitted(rule, candidate), mapped)) for (const f of kept) out[f] = foreign[f];
  });
  return out;
}

/**
 * A source whose entries nest some fields one level down (a character book's `extensions`) is
 * mapped flat: `extensions.position` is a field like any other. `nest` puts them back.
 */
export function flatten(entry: Raw, under: string): Raw {
  const inner = entry[under];
  if (!isRecord(inner)) return entry;
  const out: Raw = {};
  for (const [k, v] of Object.entries(entry)) if (k !== under) out[k] = v;
  for (const [k, v] of Object.entries(inner)) out[`${under}.${k}`] = v;
  return out;
}

export function nest(entry: Raw, under: string): Raw {
  const prefix = `${under}.`;
  const out: Raw = {};
  let inner: Raw | undefined = isRecord(entry[under]) ? { ...(entry[under] as Raw) } : undefined;
  for (const [k, v] of Object.entries(entry)) {
    if (k === under) continue;
    if (k.startsWith(prefix)) {
      inner ??= {};
      inner[k.slice(prefix.length)] = v;
    } else out[k] = v;
  }
  if (inner !== undefined) out[under] = inner;
  else if (under in entry) out[under] = entry[under];
  return out;
}

/** Structural equality for JSON values (key order ignored). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => sameValue(v, bb[i]));
  }
  const ao = a as Raw;
  const bo = b as Raw;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => sameValue(ao[k], bo[k]));
}

/**
 * The words of a list (or of a comma-separated string, as old books write them), trimmed, without
 * empties or repeats: what the card parser itself will read back from `keywords:`.
 */
export function stringList(value: unknown): string[] {
  const items = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : [];
  const seen = new Set<string>();
  for (const item of items) {
    const word = typeof item === "string" || typeof item === "number" ? String(item).trim() : "";
    if (word !== "") seen.add(word);
  }
  return [...seen];
}

/**
 * A foreign book's row as a World Info entry begins: every field but the ones the converter renames,
 * which the World Info table would otherwise read under their old names.
 */
export function exceptRenamed(row: Raw, renamed: readonly string[]): Raw {
  const out: Raw = {};
  for (const [k, v] of Object.entries(row)) if (!renamed.includes(k)) out[k] = v;
  return out;
}

/** Rows of a foreign book's list as `[id, entry]` pairs, ids by position, each object converted. */
export function convertedRows(rows: readonly unknown[], convert: (row: Raw) => Raw): [string, unknown][] {
  return rows.map((row, index) => [String(index), isRecord(row) ? convert(row) : row]);
}

export function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

/** The one way this module reports a file it cannot use: the file's name, then what was wrong. */
export function badFile(file: string, what: string, cause?: unknown): LoreError {
  return new LoreError("parse_error", `${file}: ${what}`, cause === undefined ? undefined : { cause });
}
