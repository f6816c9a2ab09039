/**
 * The conformance files (test/fixtures/conformance/*.json), read once for both sides of the suite: the
 * book a file holds is written where an importer can read it, and each case's conversation is turned
 * into what SillyTavern's `checkWorldInfo` takes.
 */
import fs from "node:fs";
import path from "node:path";
import type { Replay } from "../support/_st-replay.ts";
import { REAL_FIXTURES } from "../support/prerequisites.ts";
import type { Question } from "../support/sillytavern.ts";
import type { Case, ConformanceFile, Judge } from "./_cases.ts";

export const FIXTURES = path.resolve(import.meta.dir, "../fixtures/conformance");

export interface Loaded {
  name: string;
  book: ConformanceFile;
}

/** Every conformance file, by name. */
export function conformanceFiles(): Loaded[] {
  return fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((name) => ({ name, book: JSON.parse(fs.readFileSync(path.join(FIXTURES, name), "utf8")) }));
}

/** The file an importer reads for `book`: a real fixture, or the inline book written into `scratch`. */
export function bookSource(loaded: Loaded, scratch: string): string {
  const { book } = loaded;
  if (book.real !== undefined) return path.join(REAL_FIXTURES, book.real);
  const dir = path.join(scratch, loaded.name.replace(/\.json$/, ""));
  fs.mkdirSync(dir, { recursive: true });
  const source = path.join(dir, book.file ?? "book.json");
  fs.writeFileSync(source, JSON.stringify(book.book, null, 2));
  return source;
}

export function judgeOf(c: Case, book: ConformanceFile): Judge {
  return c.judge ?? book.judge ?? "sillytavern";
}

/**
 * SillyTavern's settings for a case: those a new installation ships (`default/content/settings.json`:
 * 2 messages scanned, recursion on) unless the file or the case says otherwise; no budget unless one
 * is set, as the cases are about which entries activate.
 */
export function stQuestion(c: Case, book: ConformanceFile, id: string, stBook: string): Question {
  const st = { ...book.sillytavern, ...c.sillytavern };
  return {
    id,
    book: stBook,
    depth: st.depth ?? 2,
    chat: c.messages.map((m) => m.text).reverse(),
    settings: { world_info_recursive: true, ...book.sillytavern?.settings, ...c.sillytavern?.settings },
  };
}

/**
 * The same question replayed in SillyTavern's page: one generation after each user message (World Info
 * runs once per generation), so that timed effects and the token estimate apply.
 */
export function stReplay(c: Case, book: ConformanceFile, id: string, stBook: string): Replay {
  const tokenizer = c.sillytavern?.tokenizer ?? book.sillytavern?.tokenizer;
  return {
    ...stQuestion(c, book, id, stBook),
    steps: c.messages.flatMap((m, i) => (m.role === "user" ? [i + 1] : [])),
    ...(tokenizer ? { tokenizer } : {}),
  };
}

/** Whether a case needs the replay: its book has timed effects, or it counts tokens. */
export function needsReplay(c: Case, book: ConformanceFile, timedBook: boolean): boolean {
  return timedBook || (c.sillytavern?.tokenizer ?? book.sillytavern?.tokenizer) !== undefined;
}
