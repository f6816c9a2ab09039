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

/**
 * Characters no card text may hold, whoever writes it: NUL and the other control characters (tab
 * always allowed, line breaks where the text has lines), the bidirectional controls that make text
 * read other than it is stored (U+202A–U+202E, U+2066–U+2069: "Trojan Source", CVE-2021-42574), and
 * half a surrogate pair, which is no character at all and cannot be written as UTF-8.
 */
const FORBIDDEN_ONE_LINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const FORBIDDEN_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** 'title holds U+202E (a bidirectional control) at character 3', or null when `text` is clean. */
export function textProblem(field: string, text: string, lines = false): string | null {
  const bad = (lines ? FORBIDDEN_LINES : FORBIDDEN_ONE_LINE).exec(text);
  const at = bad?.index ?? (text.isWellFormed() ? -1 : loneSurrogateAt(text));
  if (at === -1) return null;
  const c = text.charCodeAt(at);
  const what =
    c >= 0xd800 && c <= 0xdfff
      ? "half a surrogate pair"
      : (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
        ? "a bidirectional control"
        : "a control character";
  const code = `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
  return `${field} holds ${code} (${what}) at character ${charLength(text.slice(0, at)) + 1}`;
}

function loneSurrogateAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isHigh(c) && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) return i;
  }
  return -1;
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
  if (fields.title !== undefined) {
    add(lengthProblem("title", fields.title, MAX_TITLE_CHARS));
    add(textProblem("title", fields.title));
  }
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
    const odd = words.findIndex((w) => textProblem(name, w) !== null);
    if (odd !== -1) add(textProblem(`${name}[${odd}]`, words[odd]!));
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
