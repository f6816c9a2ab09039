/** What one converted lorebook format is (its file is one of _risu.ts, _novel.ts, …; the list: _world-books.ts). */
import { convertedRows, type Raw } from "./_model.ts";
import type { SkippedEntry } from "./_st.ts";

export interface WorldBookFormat<Format extends string = string> {
  /** The import's `format`, as `import --json` reports it. */
  format: Format;
  /** Its name in messages ("not a … book"). */
  label: string;
  detect(json: unknown): boolean;
  /** The book's entries as World Info rows (id → row), and the entries it skipped. */
  rows(json: Raw): { list: [string, unknown][]; skipped: SkippedEntry[] };
}

/** A format with its name kept as a literal, so `SourceFormat` names it. */
export function defineWorldBook<const Format extends string>(
  format: WorldBookFormat<Format>,
): WorldBookFormat<Format> {
  return format;
}

/** The rows of a book whose entries are its `entries` list, each turned into a World Info row by `convert`. */
export function entryRows(convert: (row: Raw) => Raw): WorldBookFormat["rows"] {
  return (json) => ({ list: convertedRows(json.entries as unknown[], convert), skipped: [] });
}
