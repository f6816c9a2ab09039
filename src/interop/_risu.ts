/**
 * RisuAI lorebook exports (`{"type": "risu", "ver": 1, "data": [...]}`), read as SillyTavern's World
 * Info import reads them (world-info.js `convertRisuLorebook`): `key`/`secondkey` are comma-joined
 * strings, `alwaysActive` is constant, `insertorder` the order, `activationPercent` the chance, and
 * every entry goes before the character (`position` 0). Two
 * deliberate differences, both keeping what the author wrote: `useRegex` makes every key a pattern
 * (SillyTavern drops it; the World Info table reads it as `regex`), and folder rows (`mode: "folder"`)
 * are skipped, not imported as entries. Every other field (`mode`, `bookVersion`, `folder`, …) rides
 * along under `st:`.
 */

import { exceptRenamed, isRecord, type Raw } from "./_model.ts";
import type { SkippedEntry } from "./_st.ts";
import { defineWorldBook } from "./_world-book.ts";

function isRisuBook(json: unknown): json is Raw & { data: unknown[] } {
  return isRecord(json) && json.type === "risu" && Array.isArray(json.data);
}

const RENAMED = ["key", "secondkey", "alwaysActive", "insertorder", "activationPercent"];

/** A RisuAI row as a World Info entry, plus what the card should say beyond it. */
function convert(row: Raw): Raw {
  const out = exceptRenamed(row, RENAMED);
  out.key = typeof row.key === "string" ? row.key.split(",") : [];
  out.keysecondary =
    typeof row.secondkey === "string" && row.secondkey !== "" ? row.secondkey.split(",") : [];
  out.constant = row.alwaysActive === true;
  // SillyTavern gives every RisuAI entry its place before the character (position 0).
  out.position = 0;
  if (typeof row.insertorder === "number") out.order = row.insertorder;
  if (typeof row.activationPercent === "number") out.probability = row.activationPercent;
  return out;
}

function risuEntries(json: { data: unknown[] }): {
  list: [string, unknown][];
  skipped: SkippedEntry[];
} {
  const list: [string, unknown][] = [];
  const skipped: SkippedEntry[] = [];
  json.data.forEach((row, index) => {
    const id = String(index);
    if (isRecord(row) && row.mode === "folder") {
      skipped.push({
        title: typeof row.comment === "string" ? row.comment : `entry ${id}`,
        reason: "a RisuAI folder, not an entry",
      });
      return;
    }
    list.push([id, isRecord(row) ? convert(row) : row]);
  });
  return { list, skipped };
}

export const risuBook = defineWorldBook({
  format: "risu",
  label: "RisuAI",
  detect: isRisuBook,
  rows: (json) => risuEntries(json as { data: unknown[] }),
});
