/**
 * The forgiving value readers every frontmatter field uses (README "Card format"): a frontmatter value
 * in, the value a field means (or null when it means nothing usable) out. Word lists are read from the
 * scalar's source, so `[yes, 2024]` stays two words, not a boolean and a number.
 *
 * A value is either a node of the parsed YAML document (the full path) or a plain value from Bun's YAML
 * parser (the fast path, _plain-yaml.ts): a string, number, boolean, null, array or plain object. Nodes
 * are instances of `yaml`'s classes, so the two never look alike, and one set of readers serves both.
 * A plain number or boolean has lost the text it was written as (`007`, `True`), which a word or a
 * title keeps: reading its text throws SourceNeeded, and the card is read again from its YAML nodes.
 */
import type { Node } from "yaml";
import { yamlLib } from "./_lazy.ts";
import { formatCount, lengthProblem, MAX_LIST_WORDS } from "./limits.ts";

const LIST_SEPARATORS = /[,，、]/;
const TRUE_WORDS = new Set(["true", "yes", "y", "on", "1"]);
const FALSE_WORDS = new Set(["false", "no", "n", "off", "0"]);

export type Warn = (message: string) => void;

/** A frontmatter value: a YAML node, a plain value, or undefined when the key is absent. */
export type Value = unknown;

/** Thrown when a plain value's written text is needed: only the YAML nodes still hold it. */
export class SourceNeeded extends Error {}

/** True for the plain values of the fast path (and undefined); false for `yaml` nodes. */
function isPlain(v: Value): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

const isPlainMapping = (v: Value): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && isPlain(v);

/** A scalar (no list, no mapping). */
function isScalar(v: Value): boolean {
  return isPlain(v) ? v === null || typeof v !== "object" : yamlLib().isScalar(v);
}

/** Absent, or written as nothing / `~` / `null`. */
export function isNothing(v: Value): boolean {
  if (v === undefined || v === null) return true;
  return !isPlain(v) && yamlLib().isScalar(v) && v.value === null;
}

/** A scalar written as nothing or as "". */
export function isBlank(v: Value): boolean {
  return isNothing(v) || v === "" || (!isPlain(v) && yamlLib().isScalar(v) && v.value === "");
}

/** The value of `key` in a mapping; in a YAML mapping the last pair wins, as in toJS() with duplicate keys. */
export function valueAt(parent: Value, key: string): Value {
  if (isPlainMapping(parent)) return Object.hasOwn(parent, key) ? parent[key] : undefined;
  return mapEntries(parent)?.findLast(([k]) => k === key)?.[1];
}

/** A mapping's entries as [name, value], or null when the value is no mapping. */
export function mapEntries(v: Value): [string, Value][] | null {
  if (isPlainMapping(v)) return Object.entries(v);
  if (isPlain(v) || !yamlLib().isMap(v)) return null;
  return v.items.map((pair) => {
    const k = yamlLib().isScalar(pair.key) ? pair.key.value : pair.key;
    return [String(k), pair.value ?? undefined];
  });
}

function listItems(v: Value): readonly Value[] | null {
  if (Array.isArray(v)) return v;
  return !isPlain(v) && yamlLib().isSeq(v) ? v.items : null;
}

/** A scalar's text as written (a string's value); null for nothing and for a list or a mapping. */
export function scalarText(v: Value): string | null {
  if (typeof v === "string") return v;
  if (v === null || v === undefined || (isPlain(v) && typeof v === "object")) return null;
  if (isPlain(v)) throw new SourceNeeded(`the written text of ${String(v)} is needed`);
  const node = v as Node;
  if (!yamlLib().isScalar(node) || node.value === null) return null;
  if (typeof node.value === "string") return node.value;
  return node.source ?? String(node.value);
}

/** A dropped list item as JSON text. */
const jsonOf = (v: Value) =>
  JSON.stringify(isPlain(v) ? (v ?? null) : ((v as Node | null)?.toJSON() ?? null));

/** One pair of matching quotes around a word of a comma line (`Alpha, 'Beta'`) is YAML's, not the word's. */
function unquote(word: string): string {
  const q = word[0];
  return word.length >= 2 && (q === "'" || q === '"') && word.endsWith(q) ? word.slice(1, -1).trim() : word;
}

/** The words of one comma-separated line (`Alice, Allie`; Chinese commas too), trimmed, empties dropped. */
export function wordsOfLine(text: string): string[] {
  return text
    .split(LIST_SEPARATORS)
    .map((w) => w.trim())
    .filter(Boolean);
}

export interface WordList {
  words: string[];
  /** Distinct words before the cut to MAX_LIST_WORDS. */
  total: number;
  /** Items that were no word (a mapping or a nested list), dropped, as JSON text. */
  dropped: string[];
}

/**
 * A string list from a value: a YAML list, or one comma-separated line, without empties or repeats.
 * Null when the value is no list and no word. A nested value inside a list is dropped (and counted),
 * the words beside it kept. Every word is counted, but only the first MAX_LIST_WORDS are kept.
 */
export function stringList(value: Value): WordList | null {
  const seen = new Set<string>();
  const dropped: string[] = [];
  const push = (s: string) => {
    const t = s.trim();
    if (t !== "") seen.add(t);
  };
  if (isNothing(value)) return { words: [], total: 0, dropped };
  const items = listItems(value);
  if (items !== null) {
    for (const item of items) {
      const text = isScalar(item) ? scalarText(item) : undefined;
      if (text === undefined) dropped.push(jsonOf(item));
      else if (text !== null) push(text);
    }
  } else {
    const text = scalarText(value);
    if (text === null) return null;
    for (const part of text.split(LIST_SEPARATORS)) push(unquote(part.trim()));
  }
  const words = [...seen];
  const kept = words.length > MAX_LIST_WORDS ? words.slice(0, MAX_LIST_WORDS) : words;
  return { words: kept, total: seen.size, dropped };
}

/** The list as kept, with a warning when it dropped a nested value, was cut, or holds a word over `max`. */
export function keptList(name: string, got: WordList, max: number, warn: Warn): string[] {
  if (got.dropped.length > 0) {
    const more = got.dropped.length > 1 ? ` and ${got.dropped.length - 1} more` : "";
    warn(
      `${name}: ${got.dropped[0]}${more} is not a word (a mapping or a nested list); dropped, the other words kept`,
    );
  }
  if (got.total > MAX_LIST_WORDS) {
    warn(
      `${name} has ${formatCount(got.total)} words; only the first ${formatCount(MAX_LIST_WORDS)} are used`,
    );
  }
  const long = got.words.findIndex((w) => lengthProblem(name, w, max) !== null);
  if (long !== -1) warn(lengthProblem(`${name}[${long}]`, got.words[long]!, max)!);
  return got.words;
}

/** A word list field, or [] with a warning when the value is no list at all. */
export function readList(name: string, value: Value, max: number, warn: Warn): string[] {
  const got = stringList(value);
  if (got !== null) return keptList(name, got, max, warn);
  warn(`${name} must be a word, a comma-separated line or a list of words; ignored`);
  return [];
}

export function readBool(value: unknown): boolean | null {
  if (typeof value === "boolean") return value;
  // A mapping or list is no yes/no (and String() throws on `{toString: 0}`).
  if (typeof value === "object" && value !== null) return null;
  const word = String(value).trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return null;
}

export function readNumber(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^\s*[+-]?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return null;
}

/** A whole number ≥ 0, or null. */
export function readCount(value: unknown): number | null {
  const n = readNumber(value);
  return n !== null && Number.isInteger(n) && n >= 0 ? n : null;
}
