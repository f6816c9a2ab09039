/**
 * The books bound to a character that a recall did not read, and how to read them, for `try` and
 * `explain`: a character card imported into a fresh vault makes such a book, and with no --char those
 * commands would otherwise say only that nothing fires about cards that fire in that character's
 * conversations (docs/BOOKS.md).
 */
import type { BookInfo } from "../vault/index.ts";

/** One line per bound book, in use by default for its character, that `read` leaves out. */
export function unreadBoundBooks(shelf: readonly BookInfo[], read: readonly string[]): string[] {
  return shelf
    .filter((b) => b.characters.length > 0 && b.active === "auto" && !read.includes(b.name))
    .map(
      (b) =>
        `Not read here: the book ${b.name}, bound to ${b.characters.join(", ")} (read in that character's conversations; --char ${JSON.stringify(b.characters[0])} reads it here).`,
    );
}
