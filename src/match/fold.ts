/**
 * Case folding for matching. Keywords and text are compared after the same fold, so a keyword
 * matches however the user capitalised it. `toUpperCase().toLowerCase()` gives the full Unicode
 * folds that a plain lower-casing misses (ß → ss, ﬁ → fi); NFKC first makes full-width Latin
 * (ＡＢＣ) and compatibility forms equal to their plain spelling; the Greek final sigma is merged
 * with σ because JS lower-casing picks one or the other by position.
 */
export function fold(text: string): string {
  let out = text.normalize("NFKC").toUpperCase().toLowerCase();
  if (out.includes("ς")) out = out.replaceAll("ς", "σ");
  return out;
}

/** Number of Unicode code points (what a user would call characters). */
export function charCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}_]/u;

/** True when the code point at `index` is part of a word (letter, digit, mark, underscore). */
export function isWordCharAt(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) return false;
  const cp = text.codePointAt(index);
  if (cp === undefined) return false;
  // A low surrogate at `index` belongs to the code point before it.
  if (cp >= 0xdc00 && cp <= 0xdfff && index > 0) return isWordCharAt(text, index - 1);
  return WORD_CHAR.test(String.fromCodePoint(cp));
}

/** Han ideographs, kana and the CJK marks used with them: text that has no spaces between words. */
export const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々〆]/u;

export function hasUnspaced(text: string): boolean {
  return UNSPACED.test(text);
}
