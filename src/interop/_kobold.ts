/**
 * KoboldAI world info: a story file's `worldinfo` list, or a world info export with `folders` beside
 * `entries`. Its entries already use the names World Info took from it (`key`, `keysecondary`,
 * `content`, `comment`, `constant`, `selective`), but its keys are one comma-joined string, which the
 * World Info table reads as a list. Folders are KoboldAI's own grouping and ride along under `st:`.
 */

import { isRecord, type Raw } from "./_model.ts";
import { defineWorldBook } from "./_world-book.ts";

function isKoboldBook(json: unknown): json is Raw {
  if (!isRecord(json)) return false;
  if (Array.isArray(json.worldinfo)) return true;
  return isRecord(json.folders) && (isRecord(json.entries) || Array.isArray(json.entries));
}

function koboldEntries(json: Raw): [string, unknown][] {
  const list = Array.isArray(json.worldinfo) ? json.worldinfo : json.entries;
  if (Array.isArray(list)) return list.map((row, i) => [String(i), row]);
  return isRecord(list) ? Object.entries(list) : [];
}

export const koboldBook = defineWorldBook({
  format: "kobold",
  label: "KoboldAI",
  detect: isKoboldBook,
  rows: (json) => ({ list: koboldEntries(json), skipped: [] }),
});
