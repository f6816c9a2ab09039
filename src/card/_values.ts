/**
 * The forgiving value readers every frontmatter field uses (README "Card format"): a YAML node or a
 * parsed value in, the value a field means (or null when it means nothing usable) out. Word lists are
 * read from the scalar's source, so `[yes, 2024]` stays two words, not a boolean and a number.
 */
import type { Node } from "yaml";
import { yamlLib } from "./_lazy.ts";
import { formatCount, lengthProblem, MAX_LIST_WORDS } from "./limits.ts";

export const isMap = (n: unknown) => yamlLib().isMap(n);
export const isScalar = (n: unknown) => yamlLib().isScalar(n);
const isSeq = (n: unknown) => yamlLib().isSeq(n);

const LIST_SEPARATORS = /[,，、]/;
const TRUE_WORDS = new Set(["true", "yes", "y", "on", "1"]);
const FALSE_WORDS = new Set(["false", "no", "n", "off", "0"]);

export type Warn = (message: string) => void;

/** The value node of `key` in a mapping node; the last pair wins, as in toJS() with duplicate keys. */
export function nodeOf(parent: unknown, key: string): Node | undefined {
  if (!isMap(parent)) return undefined;
  for (const pair of [...parent.items].reverse()) {
    const k = isScalar(pair.key) ? pair.key.value : pair.key;
    if (String(k) === key) return (pair.value ?? undefined) as Node | undefined;
  }
  return undefined;
}

export function scalarText(node: Node): string | null {
  if (!isScalar(node) || node.value === null) return null;
  if (typeof node.value === "string") return node.value;
  return node.source ?? String(node.value);
}

/** One pair of matching quotes around a word of a comma line (`Alpha, 'Beta'`) is YAML's, not the word's. */
function unquote(word: string): string {
  const q = word[0];
  return word.length >= 2 && (q === "'" || q === '"') && word.endsWith(q) ? word.slice(1, -1).trim() : word;
}

export interface WordList {
  words: string[];
  /** Distinct words before the cut to MAX_LIST_WORDS. */
  total: number;
  /** Items that were no word (a mapping or a nested list), dropped, as JSON text. */
  dropped: string[];
}

/**
 * A string list from a node: a YAML list, or one comma-separated line, without empties or repeats.
 * Null when the node is no list and no word. A nested value inside a list is dropped (and counted),
 * the words beside it kept. Every word is counted, but only the first MAX_LIST_WORDS are kept.
 */
export function stringList(node: Node | undefined): WordList | null {
  const seen = new Set<string>();
  const dropped: string[] = [];
  const push = (s: string) => {
    const t = s.trim();
    if (t !== "") seen.add(t);
  };
  if (node === undefined || (isScalar(node) && node.value === null)) return { words: [], total: 0, dropped };
  if (isSeq(node)) {
    for (const item of node.items) {
      const text = isScalar(item) ? scalarText(item as Node) : undefined;
      if (text === undefined) dropped.push(JSON.stringify((item as Node | null)?.toJSON() ?? null));
      else if (text !== null) push(text);
    }
  } else {
    const text = scalarText(node);
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
export function readList(name: string, node: Node | undefined, max: number, warn: Warn): string[] {
  const got = stringList(node);
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
