/**
 * Agnai memory books (`{"kind": "memory", "name", "entries": [...]}`, entries with `name`, `entry`,
 * `keywords`, `priority`, `weight`, `enabled`), read as SillyTavern's World Info import reads them
 * (world-info.js `convertAgnaiMemoryBook`): keywords, the name as the title, the entry text, `weight`
 * as the order, `enabled`. Agnai's `priority` (which entries survive its budget first) becomes the
 * card's `priority`, the tie-breaker; everything else rides along under `st:`.
 */

import { exceptRenamed, isRecord, type Raw } from "./_model.ts";
import { defineWorldBook, entryRows } from "./_world-book.ts";

function isAgnaiBook(json: unknown): json is Raw & { entries: unknown[] } {
  return isRecord(json) && json.kind === "memory" && Array.isArray(json.entries);
}

const RENAMED = ["keywords", "name", "entry", "weight", "enabled"];

function convert(row: Raw): Raw {
  const out = exceptRenamed(row, RENAMED);
  out.key = Array.isArray(row.keywords) ? row.keywords : [];
  out.comment = typeof row.name === "string" ? row.name : "";
  out.content = typeof row.entry === "string" ? row.entry : "";
  if (typeof row.weight === "number") out.order = row.weight;
  out.disable = row.enabled === false;
  return out;
}

export const agnaiBook = defineWorldBook({
  format: "agnai",
  label: "Agnai",
  detect: isAgnaiBook,
  rows: entryRows(convert),
});
