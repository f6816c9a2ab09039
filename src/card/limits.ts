/**
 * How much one card may say, chosen so that no real card meets them: a title of 200 characters, a
 * match term (keyword, alias, secondary word) of 100, and 1,000 words in any one list. Writers (API,
 * MCP) refuse more with a LoreError naming the field, its length and the limit; importers cut to fit;
 * parsing a file keeps the first 1,000 words of a list and leaves a warning for `check`. Lengths are
 * counted in code points, what a person would call characters.
 */
import { LoreError } from "../errors.ts";
import type { Secondary } from "./types.ts";

export const MAX_TITLE_CHARS = 200;
export const MAX_TERM_CHARS = 100;
export const MAX_LIST_WORDS = 1000;

/** 50000 → "50,000", the same on every machine. */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** Number of code points, without building an array. */
export function charLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff || i === 0 || !isHigh(text.charCodeAt(i - 1))) n++;
  }
  return n;
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** The first `max` code points of `text` (never half a surrogate pair). */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let seen = 0;
  for (let i = 0; i < text.length; i++) {
    if (seen === max) return text.slice(0, i);
    if (isHigh(text.charCodeAt(i)) && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) i++;
    }
    seen++;
  }
  return text;
}

/** "title is 50,000 characters long; the limit is 200", or null when `text` fits. */
export function lengthProblem(field: string, text: string, max: number): string | null {
  if (text.length <= max) return null;
  const n = charLength(text);
  return n > max ? `${field} is ${formatCount(n)} characters long; the limit is ${formatCount(max)}` : null;
}

/** "keywords has 1,001 words; the limit is 1,000", or null when the list fits. */
export function listProblem(field: string, words: readonly string[], max = MAX_LIST_WORDS): string | null {
  return words.length > max
    ? `${field} has ${formatCount(words.length)} words; the limit is ${formatCount(max)}`
    : null;
}

/** The over-limit parts of a card's fields, e.g. "keywords[3] is 150 characters long; the limit is 100". */
export function cardLimitProblems(fields: {
  title?: string;
  keywords?: readonly string[];
  aliases?: readonly string[];
  refs?: readonly string[];
  secondary?: Partial<Secondary>;
  tags?: readonly string[];
}): string[] {
  const problems: string[] = [];
  const add = (p: string | null) => {
    if (p !== null) problems.push(p);
  };
  if (fields.title !== undefined) add(lengthProblem("title", fields.title, MAX_TITLE_CHARS));
  const lists: [string, readonly string[] | undefined, number][] = [
    ["keywords", fields.keywords, MAX_TERM_CHARS],
    ["aliases", fields.aliases, MAX_TERM_CHARS],
    ["secondary.all", fields.secondary?.all, MAX_TERM_CHARS],
    ["secondary.any", fields.secondary?.any, MAX_TERM_CHARS],
    ["secondary.not", fields.secondary?.not, MAX_TERM_CHARS],
    // A ref names another card by its key or title, so it may be as long as a title.
    ["refs", fields.refs, MAX_TITLE_CHARS],
    ["tags", fields.tags, MAX_TERM_CHARS],
  ];
  for (const [name, words, max] of lists) {
    if (words === undefined) continue;
    add(listProblem(name, words));
    const long = words.findIndex((w) => lengthProblem(name, w, max) !== null);
    if (long !== -1) add(lengthProblem(`${name}[${long}]`, words[long]!, max));
  }
  return problems;
}

/** Throw LoreError invalid_input naming every field over its limit (writers call this). */
export function assertCardLimits(fields: Parameters<typeof cardLimitProblems>[0]): void {
  const problems = cardLimitProblems(fields);
  if (problems.length > 0) {
    throw new LoreError("invalid_input", problems.join("; "), { data: { problems } });
  }
}
