/**
 * The in-between shape every format maps to and from, and the one trick that makes round trips exact:
 * a mapped field whose export would not give back the value it was imported from keeps that original
 * value beside the foreign fields, and export uses it again as long as the card still says the same
 * thing. A card edited in the vault exports its new value instead.
 */

import type { Secondary } from "../card/types.ts";
import { LoreError } from "../errors.ts";
import { fitToCard } from "./_fit.ts";

/** What lorecards understands of one lorebook entry; everything else rides along in `foreign`. */
export interface Mapped {
  title: string;
  keywords: string[];
  secondary: Secondary;
  /** In turns; null to use the caller's window. */
  scanDepth: number | null;
  priority: number;
  enabled: boolean;
  /** The card body: the entry's content, without decorators. */
  body: string;
}

/** One imported entry: what we understand plus every other field of the source, verbatim. */
export interface BookEntry extends Mapped {
  foreign: Record<string, unknown>;
  /** What was cut to fit the card limits ("title cut to 200 characters"); absent when nothing was. */
  cut?: string[];
}

/** A loosely typed source object (one ST entry, one character book entry). */
export type Raw = Record<string, unknown>;

/**
 * One row of a mapping table: the source fields it owns, how they become mapped values and back.
 * `read` sees the whole entry (a fallback may look at a field another rule keeps, like ST `depth`).
 */
export interface FieldRule {
  fields: string[];
  read(entry: Raw): Partial<Mapped>;
  write(mapped: Mapped): Raw;
}

export function emptySecondary(): Secondary {
  return { all: [], any: [], not: [] };
}

/** Applies every rule; the rules together must produce a whole Mapped. */
export function readAll(rules: FieldRule[], entry: Raw): Mapped {
  const out: Partial<Mapped> = {};
  for (const rule of rules) Object.assign(out, rule.read(entry));
  return out as Mapped;
}

/** One rule's reading, cut to the card limits: what a card made from it will say. */
function readFitted(rule: FieldRule, entry: Raw): Partial<Mapped> {
  return fitToCard(rule.read(entry), () => {});
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
    const again = readFitted(rule, candidate);
    const still = (Object.keys(again) as (keyof Mapped)[]).every((k) => sameValue(again[k], mapped[k]));
    if (still) for (const f of kept) out[f] = foreign[f];
  });
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
