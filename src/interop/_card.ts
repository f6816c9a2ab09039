/**
 * Character Card objects (Character Card V3 spec, sections 6, 7 and 13): which version a JSON object
 * is, where its lorebook sits, and how a base card is upgraded to V3 to carry an exported book and
 * downgraded to the V2 backfill a PNG also carries. Unknown fields of a base card are preserved (spec 13.5).
 */

import { toV2Entry } from "./_charbook.ts";
import { isRecord, type Raw } from "./_model.ts";

export type CardVersion = "V1" | "V2" | "V3" | "Unknown";

/**
 * Spec 13.1, in its order. An object with `entries` is a book, not a V1 card, whatever `name` it
 * has (SillyTavern World Info files often carry one).
 */
export function detectVersion(obj: Raw): CardVersion {
  if (obj.spec === "chara_card_v3") return "V3";
  if (obj.spec === "chara_card_v2") return "V2";
  return isV1(obj) ? "V1" : "Unknown";
}

const V1_FIELDS = ["name", "description", "personality", "scenario", "first_mes", "mes_example"] as const;

/**
 * A V1 card (spec 13.1: no `spec` field) says what a V1 card says: a `name` and at least one more of
 * its own text fields. Any JSON with a `name` is not one: a settings file or an unknown export is not
 * a character card, and the answer says so.
 */
function isV1(obj: Raw): boolean {
  if (typeof obj.name !== "string" || "data" in obj || "entries" in obj || "spec" in obj) return false;
  return V1_FIELDS.some((f) => f !== "name" && typeof obj[f] === "string");
}
const V3_ONLY = [
  "assets",
  "nickname",
  "creator_notes_multilingual",
  "source",
  "group_only_greetings",
  "creation_date",
  "modification_date",
];
const BACKFILL_NOTE =
  "This card is a Character Card V3; use a V3-compatible application for its full lorebook.";

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** What a card says of its character besides its name. */
const CHARACTER_TEXTS = [
  "description",
  "personality",
  "scenario",
  "first_mes",
  "mes_example",
  "system_prompt",
  "post_history_instructions",
  "creator_notes",
] as const;

/** The mark of the minimal card an export makes to carry a book (`data.extensions.lorecards`). */
const CARRIER = { carries_book: true } as const;

/**
 * Whether a card's `data` only carries a lorebook: the minimal card an export made for a book (its
 * mark), still without a word of a character (no one made it one since). Imported, such a card names
 * no character: its name is the book's, and binding the book to it would keep the book out of every
 * conversation and make `{{char}}` read as the book's title.
 */
export function carriesOnlyABook(data: Raw): boolean {
  const ours = isRecord(data.extensions) ? data.extensions.lorecards : undefined;
  if (!isRecord(ours) || ours.carries_book !== true) return false;
  const empty = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "");
  const greetings = data.alternate_greetings;
  return (
    CHARACTER_TEXTS.every((f) => empty(data[f])) && (!Array.isArray(greetings) || greetings.every(empty))
  );
}

/** Spec 13.2: a V1 card's six fields under `data`, with the V2 additions empty. */
/** The V2 fields a card gets when the source has none (spec section 5: all required, may be empty). */
function v2Defaults(): Raw {
  return {
    creator_notes: "",
    system_prompt: "",
    post_history_instructions: "",
    alternate_greetings: [],
    tags: [],
    creator: "",
    character_version: "",
    extensions: {},
  };
}

function v1ToV2(obj: Raw): Raw {
  const data: Raw = {};
  for (const f of V1_FIELDS) data[f] = str(obj[f]);
  Object.assign(data, v2Defaults());
  return { spec: "chara_card_v2", spec_version: "2.0", data };
}

/** Spec 13.3 (and 13.2 first for V1). A V3 card is returned as a copy. */
export function toV3(obj: Raw): Raw {
  const version = detectVersion(obj);
  const v2 = version === "V1" ? v1ToV2(obj) : obj;
  const data: Raw = isRecord(v2.data) ? { ...v2.data } : {};
  if (version !== "V3") {
    if (!Array.isArray(data.group_only_greetings)) data.group_only_greetings = [];
    if (isRecord(data.character_book) && Array.isArray(data.character_book.entries)) {
      data.character_book = {
        ...data.character_book,
        entries: data.character_book.entries.map((e) => (isRecord(e) ? { use_regex: false, ...e } : e)),
      };
    }
  }
  return { ...v2, spec: "chara_card_v3", spec_version: "3.0", data };
}

/** Spec 7.5.7 and 7.5.8: the dates are Unix times in seconds. */
function unixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** A blank V3 card to carry a book when no base card is given: created now (spec 7.5.7). */
export function minimalCard(name: string, now: number): Raw {
  const data: Raw = {};
  for (const f of V1_FIELDS) data[f] = "";
  const at = unixSeconds(now);
  Object.assign(data, v2Defaults(), {
    name,
    group_only_greetings: [],
    creation_date: at,
    modification_date: at,
    // Imported again, it is a book, not a character named after it (carriesOnlyABook).
    extensions: { lorecards: { ...CARRIER } },
  });
  return { spec: "chara_card_v3", spec_version: "3.0", data };
}

/**
 * The base card (any version) as V3, its lorebook's entries replaced, its other book fields kept. A
 * book whose entries changed is a change to the card: `modification_date` becomes `now` (spec 7.5.8,
 * "update this when saving changes"), `creation_date` stays as it was (7.5.7: never modified); a book
 * that comes back as it was leaves both alone, so exporting an unchanged vault changes nothing.
 */
export function withBook(base: Raw, entries: Raw[], bookName: string, now: number): Raw {
  const v3 = toV3(base);
  const data = v3.data as Raw;
  const old = isRecord(data.character_book) ? data.character_book : {};
  const book: Raw = { name: bookName, extensions: {}, ...old, entries };
  const changed = !Bun.deepEquals(old.entries, entries);
  const dated = changed ? { modification_date: unixSeconds(now) } : {};
  return { ...v3, data: { ...data, character_book: book, ...dated } };
}

/** Spec 13.4 and 5.2.2: the V2 backfill of a V3 card, with a note for V2-only readers. */
export function toV2Backfill(v3: Raw): Raw {
  const data: Raw = { ...(v3.data as Raw) };
  for (const f of V3_ONLY) delete data[f];
  const notes = str(data.creator_notes);
  data.creator_notes = notes.includes(BACKFILL_NOTE)
    ? notes
    : notes === ""
      ? BACKFILL_NOTE
      : `${BACKFILL_NOTE}\n\n${notes}`;
  if (isRecord(data.character_book) && Array.isArray(data.character_book.entries)) {
    const entries = data.character_book.entries.map((e, i) => (isRecord(e) ? toV2Entry(e, i) : e));
    data.character_book = { ...data.character_book, entries };
  }
  return { ...v3, spec: "chara_card_v2", spec_version: "2.0", data };
}
