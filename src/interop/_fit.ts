/**
 * Book entries cut to what a card may hold (card/limits.ts): a title of 200 characters, match terms of
 * 100, 1,000 words a list. An importer cuts where a writer would refuse, so one outsized entry never
 * stops a book; the originals stay beside the foreign fields (see `splitEntry`) and go back out on
 * export while the card is unchanged.
 */
import { cutChars, formatCount, MAX_LIST_WORDS, MAX_TERM_CHARS, MAX_TITLE_CHARS } from "../card/index.ts";
import type { Secondary } from "../card/types.ts";
import type { MappedPart } from "./_model.ts";

function fitWords(name: string, words: string[], note: (what: string) => void): string[] {
  let long = 0;
  const out = new Set<string>();
  for (const word of words) {
    const cut = cutChars(word, MAX_TERM_CHARS);
    const fitted = cut === word ? word : cut.trimEnd();
    if (fitted !== word) long++;
    if (fitted !== "") out.add(fitted);
  }
  if (long > 0) note(`${formatCount(long)} of its ${name} cut to ${MAX_TERM_CHARS} characters`);
  if (out.size > MAX_LIST_WORDS) {
    note(`${name} cut from ${formatCount(out.size)} words to the first ${formatCount(MAX_LIST_WORDS)}`);
    return [...out].slice(0, MAX_LIST_WORDS);
  }
  return long > 0 ? [...out] : words;
}

/** `mapped` (whole or one rule's part) within the card limits; `note` hears what was cut. */
export function fitToCard<T extends MappedPart>(mapped: T, note: (what: string) => void): T {
  const out: T = { ...mapped };
  if (typeof mapped.title === "string") {
    const title = cutChars(mapped.title, MAX_TITLE_CHARS);
    if (title !== mapped.title) {
      out.title = title.trimEnd();
      note(`title cut to ${MAX_TITLE_CHARS} characters`);
    }
  }
  if (mapped.keywords) out.keywords = fitWords("keywords", mapped.keywords, note);
  if (mapped.secondary) {
    const secondary: Secondary = { ...mapped.secondary };
    for (const part of ["all", "any", "not", "notAll"] as const) {
      secondary[part] = fitWords(`secondary.${part} words`, mapped.secondary[part], note);
    }
    out.secondary = secondary;
  }
  return out;
}

/** One warning line per entry that was cut (the first few), for the import summary. */
export function cutWarnings(entries: readonly { title: string; cut?: string[] }[], shown = 5): string[] {
  const cut = entries.filter((e) => e.cut !== undefined && e.cut.length > 0);
  const lines = cut.slice(0, shown).map((e) => {
    const title = e.title.length > 40 ? `${cutChars(e.title, 40)}…` : e.title;
    return `entry "${title}": ${e.cut!.join("; ")}`;
  });
  if (cut.length > shown)
    lines.push(`${formatCount(cut.length - shown)} more entries were cut to the card limits`);
  return lines;
}
