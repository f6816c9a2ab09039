/**
 * The built-in dictionary as the bundle carries it: its entries, its scanner and its emoji keys, read
 * and built from dictionary.yaml by a Bun macro (_built-in-tables.ts) when the code is bundled or, from
 * source, when this file is first loaded. They are parsed, and the reader made from them, on first use,
 * once per process.
 */

import { builtInTablesText } from "./_built-in-tables.ts" with { type: "macro" };
import type { BuiltInTables } from "./_built-in-tables.ts";
import type { DictEntry } from "./dictionary.ts";
import { type DictionaryReader, loadedReader } from "./sightings.ts";

const TEXT = builtInTablesText();
let tables: BuiltInTables | undefined;
let reader: DictionaryReader | undefined;

function builtIn(): BuiltInTables {
  tables ??= JSON.parse(TEXT) as BuiltInTables;
  return tables;
}

export function builtInEntries(): DictEntry[] {
  return builtIn().entries;
}

export function builtInReader(): DictionaryReader {
  reader ??= loadedReader(builtIn());
  return reader;
}
