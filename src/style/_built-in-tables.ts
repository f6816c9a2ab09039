/**
 * The built-in dictionary, read, checked and compiled when the code is bundled: built-in.ts runs
 * `builtInTablesText` as a Bun macro, so the binary carries the entries, the scanner as its automaton's
 * arrays and the emoji entries' keys, as one JSON text, and a cold hook builds nothing (reading the
 * YAML, checking 800 entries and building the automaton cost a cold process about 10 ms). The text is
 * parsed on first use: JSON.parse makes the 800 entries in about half the time that evaluating them as
 * an object literal in the bundle took (0.7–0.9 ms against 1.2–1.3 in a cold hook), and a process that
 * never reads a message for style memory never parses it.
 * A problem in dictionary.yaml fails the build, naming the entry.
 */

import { type DictEntry, readDictionary } from "./dictionary.ts";
import data from "./dictionary.yaml";
import { emojiKey } from "./emoji.ts";
import type { ScannerTables } from "./scanner.ts";
import { dictionaryScanner } from "./sightings.ts";

export interface BuiltInTables {
  entries: DictEntry[];
  /** Over the entries that are not emoji; values index `entries`. */
  scanner: ScannerTables;
  /** Each emoji entry's key (emoji.ts `emojiKey`) and its place in `entries`. */
  emoji: [key: string, entry: number][];
}

export function builtInTables(): BuiltInTables {
  const read = readDictionary(data, "dictionary", "dictionary.yaml");
  if (read.problems.length > 0) throw new Error(`built-in style dictionary: ${read.problems.join("; ")}`);
  const scanner = dictionaryScanner(read.entries, (e) => e);
  const emoji: [string, number][] = [];
  read.entries.forEach((e, i) => {
    if (e.kind === "emoji") emoji.push([emojiKey(e.term), i]);
  });
  return { entries: read.entries, scanner: scanner.save((e) => read.entries.indexOf(e)), emoji };
}

/** The macro: `builtInTables` as the JSON text the bundle carries. */
export function builtInTablesText(): string {
  return JSON.stringify(builtInTables());
}
