/**
 * Which books a conversation uses (docs/BOOKS.md), the one rule every surface asks:
 * - books it names (a base URL `/books/eldoria+seraphina/v1`, the `X-Lorecards-Books` header, the
 *   hook's setting for the project folder, `try --book`): exactly those, `main` being the vault's own
 *   cards; a name no book has is said back in `unknown`;
 * - else the vault's own cards, every book that is not bound to a character nor kept for when it is
 *   asked (`active: asked`), and the books of the conversation's character: the bound character named
 *   first in its system prompt (as SillyTavern uses a character's own lorebook in that character's
 *   chats), or the character the caller names (`--char`).
 * Pure, and O(books): each bound book's characters are looked for once in the system text.
 */
import type { BookInfo } from "../vault/index.ts";

export interface BookAsk {
  /** Books named for this conversation; when given (and not empty), exactly these. */
  named?: readonly string[];
  /** The conversation's system prompt, where its character is named. */
  system?: string;
  /** The conversation's character, when the caller knows it (`--char`, settings.yaml's `char`). */
  character?: string;
}

export interface ChosenBooks {
  /** The books in use, their names, in the shelf's order (`main` first). */
  books: string[];
  /** Named books that are not on the shelf. */
  unknown: string[];
  /** The character whose books were chosen, as its book names it. */
  character?: string;
}

/** Where `name` stands in `text` as a word of its own (case ignored), or -1. */
export function namedAt(text: string, name: string): number {
  const wanted = name.trim().toLowerCase();
  if (wanted === "") return -1;
  const hay = text.toLowerCase();
  // Scripts written without spaces have no word edges to look for.
  const unspaced =
    /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u.test(wanted);
  for (let at = hay.indexOf(wanted); at !== -1; at = hay.indexOf(wanted, at + 1)) {
    if (unspaced) return at;
    const before = hay[at - 1] ?? " ";
    const after = hay[at + wanted.length] ?? " ";
    if (!/[\p{L}\p{N}_]/u.test(before) && !/[\p{L}\p{N}_]/u.test(after)) return at;
  }
  return -1;
}

/** The bound character the text names first, as some book names it; undefined when it names none. */
function characterIn(shelf: readonly BookInfo[], text: string): string | undefined {
  let best: { at: number; name: string } | undefined;
  for (const book of shelf)
    for (const name of book.characters) {
      const at = namedAt(text, name);
      if (
        at !== -1 &&
        (best === undefined || at < best.at || (at === best.at && name.length > best.name.length))
      )
        best = { at, name };
    }
  return best?.name;
}

export function chooseBooks(shelf: readonly BookInfo[], ask: BookAsk = {}): ChosenBooks {
  const named = (ask.named ?? []).map((n) => n.trim().toLowerCase()).filter((n) => n !== "");
  if (named.length > 0) {
    const wanted = new Set(named);
    const books = shelf.filter((b) => wanted.has(b.name)).map((b) => b.name);
    const unknown = [...wanted].filter((n) => !books.includes(n));
    return { books, unknown };
  }
  const given = ask.character?.trim();
  const character =
    (given && shelf.some((b) => b.characters.some((c) => c.toLowerCase() === given.toLowerCase()))
      ? given
      : undefined) ?? (ask.system ? characterIn(shelf, ask.system) : undefined);
  const lower = character?.toLowerCase();
  // A book kept for when it is asked for is never in by default, bound or not.
  const books = shelf
    .filter((b) =>
      b.active === "asked"
        ? false
        : b.characters.length === 0 ||
          (lower !== undefined && b.characters.some((c) => c.toLowerCase() === lower)),
    )
    .map((b) => b.name);
  return { books, unknown: [], ...(character !== undefined && { character }) };
}

/** `eldoria+seraphina`, `eldoria, seraphina`: the book names one line gives. */
export function bookNamesIn(line: string | null | undefined): string[] {
  return (line ?? "")
    .split(/[+,]/)
    .map((n) => n.trim())
    .filter((n) => n !== "");
}
