/**
 * The built-in dictionary, read, checked and compiled when the code is bundled: built-in.ts runs
 * `builtInTables` as a Bun macro, so the binary carries the entries as an object and the scanner as
 * its automaton's arrays, and a cold hook builds nothing (reading the YAML, checking 800 entries and
 * building the automaton cost a cold process about 10 ms; loading the arrays costs well under one).
 * A problem in dictionary.yaml fails the build, naming the entry.
 */

import { type DictEntry, readDictionary } from "./dictionary.ts";
import data from "./dictionary.yaml";
import type { ScannerTables } from "./scanner.ts";
import { dictionaryScanner } from "./sightings.ts";

export interface BuiltInTables {
  entries: DictEntry[];
  /** Over the entries that are not emoji; values index `entries`. */
  scanner: ScannerTables;
}

export function builtInTables(): BuiltInTables {
  const read = readDictionary(data, "dictionary", "dictionary.yaml");
  if (read.problems.length > 0) throw new Error(`built-in style dictionary: ${read.problems.join("; ")}`);
  const scanner = dictionaryScanner(read.entries, (e) => e);
  return { entries: read.entries, scanner: scanner.save((e) => read.entries.indexOf(e)) };
}
