/**
 * The literals a pattern cannot match without: the runs of plain ASCII characters that every match
 * contains (`monday` and `deploy` in `monday\s+deploy`). With them a lookup can skip a pattern whose
 * literals are not all in the text, without compiling or running the pattern. The reading is deliberately
 * conservative: whatever it is unsure of (a top-level `|`, inline flags, groups, classes, escapes that
 * are no plain character, anything a quantifier makes optional) breaks the run or gives no literal,
 * so a pattern with a literal can only ever be skipped when it could not have matched.
 */

/** Runs shorter than this find too much to be worth a lookup of their own. */
const MIN_LITERAL = 3;

/**
 * The literals of `source` (re2 syntax) that every match contains, as written, longest first; empty
 * when there is none worth using.
 */
export function requiredLiterals(source: string): string[] {
  // Inline flags like `(?i)` change how the rest reads; a top-level `|` means no one literal is required.
  if (/\(\?[a-zA-Z-]*\)/.test(source)) return [];
  const runs: string[] = [];
  let run = "";
  const stop = () => {
    if (run.length > 0) runs.push(run);
    run = "";
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "(") {
      stop();
      i = groupEnd(source, i);
    } else if (c === "[") {
      stop();
      i = classEnd(source, i);
    } else if (c === "\\") {
      const next = source[i + 1] ?? "";
      if (isPunctuation(next)) run += next;
      else stop();
      i = escapeEnd(source, i);
    } else if (c === "|") {
      return [];
    } else if (c === "*" || c === "?" || c === "+" || c === "{") {
      // The character before a quantifier may repeat zero times (or its run ends there): drop it.
      run = run.slice(0, -1);
      stop();
      if (c === "{") i = repeatEnd(source, i);
    } else if (c === "." || c === "^" || c === "$" || c < " " || c > "~") {
      stop();
    } else {
      run += c;
    }
  }
  stop();
  return runs.filter((r) => r.length >= MIN_LITERAL).sort((a, b) => b.length - a.length);
}

/** ASCII punctuation: escaped, it stands for itself. */
function isPunctuation(c: string): boolean {
  return c.length === 1 && c > " " && c <= "~" && !/[A-Za-z0-9]/.test(c);
}

/** Index of the `)` closing the group opened at `open` (escapes and classes inside skipped). */
function groupEnd(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i = escapeEnd(source, i);
    else if (c === "[") i = classEnd(source, i);
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return source.length;
}

/** Index of the `]` closing the class opened at `open` (a `]` first in the class is a member). */
function classEnd(source: string, open: number): number {
  let i = open + 1;
  if (source[i] === "^") i++;
  if (source[i] === "]") i++;
  for (; i < source.length; i++) {
    if (source[i] === "\\") i = escapeEnd(source, i);
    else if (source[i] === "[" && source[i + 1] === ":") i = source.indexOf(":]", i + 2) + 1 || source.length;
    else if (source[i] === "]") return i;
  }
  return source.length;
}

/** Index of the last character of the escape starting at `at` (`\x{…}`, `\p{…}`, `\Q…\E` included). */
function escapeEnd(source: string, at: number): number {
  const kind = source[at + 1];
  if ((kind === "x" || kind === "p" || kind === "P") && source[at + 2] === "{") {
    const close = source.indexOf("}", at + 3);
    return close === -1 ? source.length : close;
  }
  if (kind === "x") return at + 3;
  if (kind === "p" || kind === "P") return at + 2;
  if (kind === "Q") {
    const close = source.indexOf("\\E", at + 2);
    return close === -1 ? source.length : close + 1;
  }
  let end = at + 1;
  if (kind !== undefined && /[0-7]/.test(kind)) while (/[0-7]/.test(source[end + 1] ?? "")) end++;
  return end;
}

/** Index of the `}` of a `{n,m}` repeat at `open`, or `open` itself when it is no repeat. */
function repeatEnd(source: string, open: number): number {
  const repeat = /^\{\d*(,\d*)?\}/.exec(source.slice(open));
  return repeat ? open + repeat[0].length - 1 : open;
}
