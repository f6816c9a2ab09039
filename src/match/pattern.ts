/**
 * The one rule for regular-expression keys. A key written `/pattern/flags` is a pattern whatever the
 * card says (SillyTavern's rule: it starts with `/`, its last `/` is followed only by flag letters,
 * and the pattern has no unescaped `/` of its own); with the card's `regex` rule (CCv3 `use_regex`)
 * every keyword and alias is one, written bare or in that form. Patterns run on re2js, a linear-time
 * engine, so no key can stall a lookup however it is written. Of the flags, `i`, `m` and `s` are
 * honoured and `g`, `y`, `u` mean nothing for a yes/no test; a bare pattern ignores case unless the
 * card is `case_sensitive`, a `/…/` key only with its own `i` (in SillyTavern a regex key overrides the
 * card's case setting). A pattern re2js cannot compile never matches; `keyPattern` gives its error
 * text for `check`.
 */

import type { RE2JS } from "re2js";
import type { CardRules } from "../card/types.ts";
import { describeError } from "../errors.ts";
import { re2 } from "./_re2.ts";

/** A compiled key, or why it could not be compiled. */
export type KeyPattern = { regex: RE2JS } | { error: string };

/** What decides how a key is read: the card's `regex` and `case_sensitive` rules. */
export type PatternRules = Pick<CardRules, "regex" | "caseSensitive">;

/** `/pattern/flags`, the flags limited to JavaScript's (as SillyTavern reads keys). */
const SLASHED = /^\/([\s\S]+?)\/([gimsuy]*)$/;
/** A `/` not preceded by a backslash: such a key is no `/…/` pattern in SillyTavern either. */
const BARE_SLASH = /(^|[^\\])\//;

/** Compiled patterns by flags and source; a vault has a bounded number of keys, the cap is a guard. */
const cache = new Map<string, KeyPattern>();
const CACHE_LIMIT = 50_000;

/** A key's pattern in re2's syntax (JavaScript spellings translated) with its re2js flags, not yet compiled. */
export interface PatternSource {
  source: string;
  flags: number;
}

/**
 * The key as a regular expression, `{ error }` when it is meant as one but does not compile, or null
 * when it is a plain word (matched by the automaton). Keys are trimmed first, like terms.
 */
export function keyPattern(key: string, rules: PatternRules): KeyPattern | null {
  const source = keySource(key, rules);
  return source && compilePattern(source);
}

/** True when the key is read as a regular expression under these rules (valid or not). */
export function isPatternKey(key: string, rules: PatternRules): boolean {
  return keySource(key, rules) !== null;
}

/**
 * How the key reads as a pattern, or null for a plain word: without compiling it, so a cold process
 * that runs its patterns together (regex-scan.ts) parses each one once.
 */
export function keySource(key: string, rules: PatternRules): PatternSource | null {
  const text = key.trim();
  if (text.length === 0) return null;
  const slashed = SLASHED.exec(text);
  if (slashed && !BARE_SLASH.test(slashed[1]!))
    return { source: translated(slashed[1]!), flags: flagBits(slashed[2]!) };
  if (!rules.regex) return null;
  return { source: translated(text), flags: rules.caseSensitive ? 0 : re2().RE2JS.CASE_INSENSITIVE };
}

/** JavaScript spellings (`\u00e9`, `(?<name>…)`) in re2's; a source it cannot read is left to fail compiling. */
function translated(source: string): string {
  try {
    return re2().RE2JS.translateRegExp(source);
  } catch {
    return source;
  }
}

function flagBits(flags: string): number {
  let bits = 0;
  if (flags.includes("i")) bits |= re2().RE2JS.CASE_INSENSITIVE;
  if (flags.includes("m")) bits |= re2().RE2JS.MULTILINE;
  if (flags.includes("s")) bits |= re2().RE2JS.DOTALL;
  return bits;
}

/** The pattern compiled (once per source and flags), or its error. */
export function compilePattern({ source, flags }: PatternSource): KeyPattern {
  const id = `${flags}\u0000${source}`;
  let found = cache.get(id);
  if (found === undefined) {
    found = compile(source, flags);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(id, found);
  }
  return found;
}

function compile(source: string, flags: number): KeyPattern {
  try {
    return { regex: re2().RE2JS.compile(source, flags) };
  } catch (err) {
    return { error: describeError(err) };
  }
}

/**
 * The text of the first match of `pattern` in `text`, or null. The yes/no test runs first because
 * re2js answers it on its fast path, and most texts do not match; an empty match counts (SillyTavern's
 * `test` accepts it too).
 */
export function firstMatch(pattern: RE2JS, text: string): string | null {
  if (!pattern.test(text)) return null;
  const m = pattern.matcher(text);
  return m.find() ? (m.group() ?? "") : "";
}
