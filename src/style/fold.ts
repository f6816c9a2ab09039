/**
 * The engine's case folding (match/fold.ts), plus the typographic apostrophe read as a plain one
 * ("it’s giving" is "it's giving"), and a way back from a folded position to the text's own: NFKC
 * and full folds change lengths (… → ..., ß → ss), and an example is cut from the text as written.
 */
import { fold } from "../match/fold.ts";

export function styleFold(text: string): string {
  const out = fold(text);
  return out.includes("\u2019") ? out.replaceAll("\u2019", "'") : out;
}

export interface Folded {
  folded: string;
  /** The position in the original text of a position in `folded`. */
  at: (index: number) => number;
}

/**
 * The folded text and its positions. When folding kept the length, positions are the same; otherwise
 * each code point is folded on its own, which is the same fold but for composing sequences.
 */
export function foldMapped(text: string): Folded {
  const whole = styleFold(text);
  if (whole.length === text.length) return { folded: whole, at: (i) => i };
  let folded = "";
  const map: number[] = [];
  for (let i = 0; i < text.length; ) {
    const width = (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    const part = styleFold(text.slice(i, i + width));
    folded += part;
    for (let k = 0; k < part.length; k++) map.push(i);
    i += width;
  }
  map.push(text.length);
  return { folded, at: (i) => map[Math.min(i, map.length - 1)]! };
}
