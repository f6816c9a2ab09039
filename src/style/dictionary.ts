/**
 * The dictionary of style signals as data: the built-in `dictionary.yaml` (read when the code is
 * bundled, built-in.ts) and the vault's own `style-dictionary.yaml`, read into one list of entries
 * by the same code. Each entry is a term with
 * its kind, locale, gloss and the contexts it suits or must stay out of. A bad entry is skipped and
 * said in a sentence naming where it is; nothing here ever stops observation.
 *
 * A file holds `groups:` (a kind, locale and tags shared by the group's `entries:`), `entries:` of
 * its own, and `ignore:` (built-in terms to stop noticing). Entries are a list (a term, or a mapping
 * with `term:`) or a mapping of term → gloss, or term → {note, more, not, kind, locale, …}.
 */
import { styleFold } from "./fold.ts";
import { CONTEXT_TAGS, type ContextTag, type HabitKind, HINT_KINDS } from "./types.ts";

export interface DictEntry {
  /** As written in the dictionary; what the brief and the habit show. */
  term: string;
  kind: HabitKind;
  locale: string;
  note?: string;
  useWhen: ContextTag[];
  avoidWhen: ContextTag[];
  /** Characters the term may run on with and still be itself: "haha" + "ha" matches "hahahaha". */
  more?: string;
  /** Longer spellings that contain the term but mean something else (阿拉 in 阿拉伯). */
  not?: string[];
  source: "dictionary" | "user";
}

/** Where each kind must stay out of, when an entry says nothing (the context tags of types.ts). */
export const KIND_AVOID: Record<HabitKind, ContextTag[]> = {
  slang: ["formal", "serious", "legal", "medical"],
  abbreviation: ["formal", "legal", "medical"],
  catchphrase: ["legal", "medical"],
  laughter: ["formal", "serious", "legal", "medical"],
  address: ["formal", "legal", "medical"],
  dialect: ["formal", "legal", "medical"],
  idiolect: ["formal", "legal", "medical"],
  emoji: ["formal", "serious", "legal", "medical"],
  emoticon: ["formal", "serious", "legal", "medical"],
  punctuation: ["formal", "legal"],
  voice: [],
  preference: [],
};

/** A term is short: a phrase someone says, not a sentence. */
export const TERM_MAX = 40;
const FIELDS = new Set(["term", "kind", "locale", "note", "use_when", "avoid_when", "more", "not"]);
const LOCALE = /^(?:any|[a-z]{2,3}(?:-[a-z0-9]{2,12})*)$/;

export interface Dictionary {
  entries: DictEntry[];
  builtIn: number;
  user: number;
  problems: string[];
}

interface Defaults {
  kind?: unknown;
  locale?: unknown;
  use_when?: unknown;
  avoid_when?: unknown;
}

/** Reads one entry (a term, or a mapping) under its group's defaults; a string is the problem. */
function readEntry(raw: unknown, group: Defaults, source: DictEntry["source"]): DictEntry | string {
  if (!isMapping(raw) && typeof raw !== "string" && typeof raw !== "number")
    return "an entry must be a term or a mapping with `term:`";
  const item: Record<string, unknown> = isMapping(raw) ? raw : { term: raw };
  const unknown = Object.keys(item).find((k) => !FIELDS.has(k));
  // YAML reads 666 or 2333 as numbers; a term is their digits.
  const term = typeof item.term === "string" || typeof item.term === "number" ? String(item.term).trim() : "";
  if (term === "") return "an entry has no `term:`";
  const named = `"${term}"`;
  if (unknown !== undefined)
    return `${named}: unknown field \`${unknown}\` (the fields are ${[...FIELDS].join(", ")})`;
  if (/[\n\r\t]/.test(term) || [...term].length > TERM_MAX)
    return `${named}: a term is one line of at most ${TERM_MAX} characters`;
  if (styleFold(term).trim() === "") return `${named}: the term is empty once folded`;
  const kind = item.kind ?? group.kind ?? "idiolect";
  if (typeof kind !== "string" || !(HINT_KINDS as readonly string[]).includes(kind))
    return `${named}: kind must be one of ${HINT_KINDS.join(", ")}`;
  const locale = item.locale ?? group.locale ?? guessLocale(term);
  if (typeof locale !== "string" || !LOCALE.test(locale))
    return `${named}: locale must look like "en", "zh", "zh-sichuan" or "any"`;
  const useWhen = tags(item.use_when ?? group.use_when ?? []);
  const avoidWhen = tags(item.avoid_when ?? group.avoid_when ?? KIND_AVOID[kind as HabitKind]);
  if (typeof useWhen === "string") return `${named}: use_when ${useWhen}`;
  if (typeof avoidWhen === "string") return `${named}: avoid_when ${avoidWhen}`;
  const entry: DictEntry = { term, kind: kind as HabitKind, locale, useWhen, avoidWhen, source };
  for (const key of ["note", "more"] as const) {
    const value = item[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || value.trim() === "") return `${named}: ${key} must be text`;
    entry[key] = value.trim();
  }
  if (item.not !== undefined) {
    const not = item.not;
    if (!Array.isArray(not) || !not.every((n) => typeof n === "string" && n.includes(term)))
      return `${named}: not must list longer spellings that contain the term`;
    entry.not = not as string[];
  }
  return entry;
}

/** `{term: gloss}` and `{term: {note, …}}` as the list form: `{term, note, …}`. */
function fromMapping(items: Record<string, unknown>): unknown[] {
  return Object.entries(items).map(([term, value]) => {
    if (value === null || value === undefined) return { term };
    if (typeof value === "string") return { term, note: value };
    return isMapping(value) ? { ...value, term } : { term, note: value };
  });
}

function tags(value: unknown): ContextTag[] | string {
  if (!Array.isArray(value)) return `must be a list of ${CONTEXT_TAGS.join(", ")}`;
  const bad = value.find((t) => !(CONTEXT_TAGS as readonly unknown[]).includes(t));
  if (bad !== undefined) return `has "${String(bad)}"; the tags are ${CONTEXT_TAGS.join(", ")}`;
  return value as ContextTag[];
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** "zh" for a term with Han characters, "en" for Latin letters, else "any". */
export function guessLocale(term: string): string {
  if (/\p{Script=Han}/u.test(term)) return "zh";
  return /[a-z]/i.test(term) ? "en" : "any";
}

/**
 * The entries of a dictionary document: `{groups: [{kind, locale, use_when, avoid_when, entries}]}`
 * and/or `{entries: [...]}`; the ignore list of the vault's file. Problems name `label`.
 */
export function readDictionary(
  data: unknown,
  source: DictEntry["source"],
  label: string,
): { entries: DictEntry[]; ignore: string[]; problems: string[] } {
  const problems: string[] = [];
  const entries: DictEntry[] = [];
  const ignore: string[] = [];
  if (data === null || data === undefined) return { entries, ignore, problems };
  if (!isMapping(data)) {
    problems.push(`${label}: the file must be a mapping with \`entries:\` (a list); nothing in it was used`);
    return { entries, ignore, problems };
  }
  const known = new Set(["groups", "entries", "ignore", "version"]);
  for (const key of Object.keys(data)) {
    if (!known.has(key)) problems.push(`${label}: unknown key \`${key}\` ignored (use entries:, ignore:)`);
  }
  const groups: { defaults: Defaults; items: unknown }[] = [];
  if (data.groups !== undefined) {
    if (!Array.isArray(data.groups)) problems.push(`${label}: groups: must be a list; ignored`);
    else for (const g of data.groups) groups.push({ defaults: isMapping(g) ? g : {}, items: g?.entries });
  }
  if (data.entries !== undefined) groups.push({ defaults: {}, items: data.entries });
  for (const { defaults, items } of groups) {
    const list = Array.isArray(items) ? items : isMapping(items) ? fromMapping(items) : undefined;
    if (list === undefined) {
      problems.push(`${label}: entries: must be a list or a mapping of term: gloss; ignored`);
      continue;
    }
    list.forEach((raw, i) => {
      const entry = readEntry(raw, defaults, source);
      if (typeof entry === "string") problems.push(`${label}: entry ${i + 1}: ${entry}; skipped`);
      else entries.push(entry);
    });
  }
  if (data.ignore !== undefined) {
    if (Array.isArray(data.ignore) && data.ignore.every((t) => typeof t === "string"))
      ignore.push(...data.ignore);
    else problems.push(`${label}: ignore: must be a list of terms; ignored`);
  }
  return { entries, ignore, problems };
}

/**
 * The built-in entries merged with the vault's: a vault entry replaces a built-in one with the same
 * folded term, an ignored term is dropped, and a term given twice in one file keeps its first entry.
 */
export function mergeDictionaries(
  builtIn: DictEntry[],
  user: { entries: DictEntry[]; ignore: string[] },
  label: string,
): { entries: DictEntry[]; problems: string[] } {
  const problems: string[] = [];
  const byTerm = new Map<string, DictEntry>();
  for (const e of builtIn) if (!byTerm.has(styleFold(e.term))) byTerm.set(styleFold(e.term), e);
  const seen = new Set<string>();
  for (const e of user.entries) {
    const key = styleFold(e.term);
    if (seen.has(key)) {
      problems.push(`${label}: "${e.term}" is given twice; the first entry is used`);
      continue;
    }
    seen.add(key);
    byTerm.set(key, e);
  }
  for (const t of user.ignore) byTerm.delete(styleFold(t.trim()));
  return { entries: [...byTerm.values()], problems };
}
