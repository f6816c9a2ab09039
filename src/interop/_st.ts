/**
 * SillyTavern World Info books, both ways, through the table in _st-rules.ts; the fields it has no
 * row for (uid, displayIndex, vectorized, automationId, …) ride along verbatim under `st:`.
 */

import { type BookEntry, badFile, isRecord, joinEntry, type Mapped, type Raw, splitEntry } from "./_model.ts";
import { ST_RULES } from "./_st-rules.ts";

/** The fields of a World Info entry no rule writes, as a current SillyTavern writes them. */
const ST_DEFAULTS: Raw = {
  vectorized: false,
  addMemo: true,
  automationId: "",
};

export interface SkippedEntry {
  title: string;
  reason: string;
}

/**
 * Whether a parsed JSON value looks like a World Info book: an object with `entries` (an object or a
 * list), or a list of entry objects. Entries win over anything else the object holds (a `name`, say).
 */
export function isWorldInfo(json: unknown): boolean {
  if (Array.isArray(json)) return json.every(isRecord);
  return isRecord(json) && (isRecord(json.entries) || Array.isArray(json.entries));
}

export function readWorldInfo(
  json: unknown,
  file: string,
): { entries: BookEntry[]; skipped: SkippedEntry[] } {
  const list = Array.isArray(json) ? json : isRecord(json) ? json.entries : undefined;
  if (!isRecord(list) && !Array.isArray(list)) throw badFile(file, "no World Info `entries` found");
  return readEntries(Object.entries(list));
}

/** Maps World Info shaped entries (also what the other World Info readers convert to). */
export function readEntries(list: [string, unknown][]): { entries: BookEntry[]; skipped: SkippedEntry[] } {
  const entries: BookEntry[] = [];
  const skipped: SkippedEntry[] = [];
  for (const [id, entry] of list) {
    if (!isRecord(entry)) {
      skipped.push({ title: `entry ${id}`, reason: "not a JSON object" });
      continue;
    }
    entries.push(splitEntry(ST_RULES, entry));
  }
  return { entries, skipped };
}

/** One card ready for export: what it says plus the `st:` fields it carried in. */
export interface StSource extends Mapped {
  st: Raw;
}

export function writeWorldInfo(cards: StSource[]): { entries: Record<string, Raw> } {
  const used = new Set<number>();
  for (const card of cards) {
    const uid = card.st.uid;
    if (typeof uid === "number" && Number.isInteger(uid)) used.add(uid);
  }
  const taken = new Set<number>();
  let next = 0;
  const entries: Record<string, Raw> = {};
  cards.forEach((card, index) => {
    let uid = card.st.uid;
    if (typeof uid !== "number" || !Number.isInteger(uid) || taken.has(uid)) {
      while (used.has(next) || taken.has(next)) next++;
      uid = next;
    }
    taken.add(uid as number);
    const entry = joinEntry(ST_RULES, card, { ...ST_DEFAULTS, displayIndex: index, ...card.st });
    entries[String(uid)] = Object.assign({ uid }, entry, { uid });
  });
  return { entries };
}
