/**
 * The built-in dictionary as the bundle carries it: its entries and its scanner, read and built from
 * dictionary.yaml by a Bun macro (_built-in-tables.ts) when the code is bundled or, from source, when
 * this file is first loaded. The reader is made from them on first use, once per process.
 */
import { builtInTables } from "./_built-in-tables.ts" with { type: "macro" };
import type { DictEntry } from "./dictionary.ts";
import { type DictionaryReader, loadedReader } from "./sightings.ts";

const TABLES = builtInTables();
let reader: DictionaryReader | undefined;

export function builtInEntries(): DictEntry[] {
  return TABLES.entries;
}

export function builtInReader(): DictionaryReader {
  reader ??= loadedReader(TABLES.entries, TABLES.scanner);
  return reader;
}
