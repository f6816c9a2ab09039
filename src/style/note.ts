/**
 * A message noted now and learned later: the hook's way (README "Style memory"). The prompt is read
 * where its text is (its sightings, its one scrubbed excerpt, the moment and the rules in force), and
 * what was read is appended to the inbox beside style.db (_inbox.ts), which the next use of the store
 * learns first, so a prompt costs the hook no SQLite. Two cases open the store as before: a store not
 * known to hold no phrase agents hinted at (reading a prompt for them takes the store, _hinted.ts; a
 * vault's first prompt, and each while hints are kept) learns the prompt at once; and an inbox grown
 * by another FOLD_EVERY bytes is folded by the hook itself, so it stays small when nothing else reads
 * style memory for a long while.
 */
import { warnOnStderr } from "../errors.ts";
import { mayHoldHints } from "./_hinted.ts";
import { appendObserved, inboxPath } from "./_inbox.ts";
import { readObserved } from "./_learn.ts";
import { Readers } from "./_readers.ts";
import { StyleSettingsFile } from "./_settings-file.ts";
import { Book } from "./book.ts";
import type { StyleOptions } from "./types.ts";

const FOLD_EVERY = 64 * 1024;

export async function noteMessage(
  vaultRoot: string,
  options: StyleOptions,
  conversation: string,
  text: string,
): Promise<void> {
  if (text.trim() === "") return;
  if (mayHoldHints(vaultRoot))
    return withBook(vaultRoot, options, (book) => book.observe(conversation, text));
  const rules = new StyleSettingsFile(vaultRoot, options.settings).rules();
  const reader = new Readers(vaultRoot, options.warn ?? warnOnStderr).reader();
  const [read] = readObserved([{ conversation, text }], { reader, keep: rules.exampleLength });
  if (read === undefined) return;
  const { before, after } = appendObserved(inboxPath(vaultRoot), read, (options.now ?? Date.now)(), rules);
  if (Math.floor(before / FOLD_EVERY) !== Math.floor(after / FOLD_EVERY)) {
    await withBook(vaultRoot, options, async (book) => void (await book.learning()));
  }
}

async function withBook(
  vaultRoot: string,
  options: StyleOptions,
  fn: (book: Book) => Promise<void>,
): Promise<void> {
  const book = new Book(vaultRoot, options);
  try {
    await fn(book);
  } finally {
    await book.close();
  }
}
