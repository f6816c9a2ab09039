/**
 * Cards → the bytes of one export file: a SillyTavern World Info book, a `lorebook_v3` export, or a
 * Character Card V3 carrying the book as JSON, as PNG (`ccv3` plus a V2 `chara` backfill, every other
 * chunk of the base image kept) or as CHARX. A base card supplies everything but the book's entries.
 */

import { describeError } from "../errors.ts";
import { detectVersion, minimalCard, toV2Backfill, withBook } from "./_card.ts";
import { writeLorebookEntries } from "./_charbook.ts";
import { type CharxContents, isZip, readCharx, writeCharx } from "./_charx.ts";
import type { ExportCard } from "./_draft.ts";
import { badFile, isRecord, type Raw } from "./_model.ts";
import { cardTextFromPng, embedCard, isPng, tinyPng, withoutCard } from "./_png.ts";
import { type SkippedEntry, writeWorldInfo } from "./_st.ts";

export const EXPORT_FORMATS = ["st", "lorebook_v3", "card-json", "card-png", "charx"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface BaseCardFile {
  bytes: Uint8Array;
  filename: string;
}

export interface RenderOptions {
  /** A card (JSON, PNG or CHARX) to carry the book; a minimal one is made when absent. */
  base?: BaseCardFile;
  /** The book's name when the base card has none (default "lorecards"). */
  bookName?: string;
  /** The clock of a card's `creation_date` and `modification_date` (milliseconds). */
  now?: () => number;
}

export interface ExportFile {
  bytes: Uint8Array;
  contentType: string;
  /** A suggested download name. */
  filename: string;
  /** How many cards the book holds. */
  cards: number;
  /** Card files left out because they could not be read, with the reason. */
  skipped: SkippedEntry[];
}

const encoder = new TextEncoder();

function jsonFile(value: unknown, filename: string, cards: number): ExportFile {
  const bytes = encoder.encode(`${JSON.stringify(value, null, 2)}\n`);
  return { bytes, contentType: "application/json", filename, cards, skipped: [] };
}

interface BaseCard {
  card: Raw;
  png?: Uint8Array;
  others?: CharxContents["others"];
}

function parseCardJson(text: string, file: string): Raw {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw badFile(file, `base card is not a PNG, a CHARX or valid JSON (${describeError(err)})`, err);
  }
  if (!isRecord(json) || detectVersion(json) === "Unknown") {
    throw badFile(file, "base card is not a Character Card V1, V2 or V3");
  }
  return json;
}

async function loadBase(base: BaseCardFile | undefined, bookName: string, now: number): Promise<BaseCard> {
  if (!base) return { card: minimalCard(bookName, now) };
  const { bytes, filename } = base;
  if (isPng(bytes))
    return { card: parseCardJson(cardTextFromPng(bytes, filename).text, filename), png: bytes };
  if (isZip(bytes)) {
    const { cardJson, others } = await readCharx(bytes, filename, { withOthers: true });
    return { card: parseCardJson(cardJson, filename), others };
  }
  return { card: parseCardJson(new TextDecoder().decode(bytes), filename) };
}

/**
 * A card keeps the id it was imported with whichever format it goes out in: a World Info entry's
 * `uid` becomes its id in a character book, and a character book entry's `id` its `uid`, where the
 * card has none of the other kind.
 */
function withKeptIds(cards: readonly ExportCard[], into: "uid" | "id"): ExportCard[] {
  return cards.map((c) => {
    const [own, other] = into === "uid" ? [c.st.uid, c.card.id] : [c.card.id, c.st.uid];
    if (own !== undefined || typeof other !== "number" || !Number.isInteger(other)) return c;
    return into === "uid" ? { ...c, st: { ...c.st, uid: other } } : { ...c, card: { ...c.card, id: other } };
  });
}

/**
 * Cards with a kept uid first, by it, then the rest in vault order: the order a World Info book's own
 * entries go out in (its `displayIndex` where an entry brought none), as a character book's do by id.
 */
function inIdOrder(cards: ExportCard[]): ExportCard[] {
  const rank = (c: ExportCard) =>
    typeof c.st.uid === "number" && Number.isInteger(c.st.uid) ? c.st.uid : Number.POSITIVE_INFINITY;
  return cards
    .map((card, index) => ({ card, index }))
    .sort((a, b) => rank(a.card) - rank(b.card) || a.index - b.index)
    .map((o) => o.card);
}

/** Where a CHARX keeps a card's main icon, and how its card.json names it (the spec's `embeded`). */
const ICON_FILE = "assets/icon/images/main.png";
const ICON_URI = `embeded://${ICON_FILE}`;

/**
 * A PNG card's picture, carried into a CHARX: in a PNG the image itself is the card's icon (`ccdefault:`,
 * which is also what a card with no `assets` means, spec 6.3.1); a CHARX keeps it as a file of its own,
 * which card.json's assets name. A card whose assets name no `ccdefault:` icon keeps its assets as they are.
 */
function withPicture(
  card: Raw,
  png: Uint8Array,
  file: string,
): { card: Raw; others: CharxContents["others"] } {
  const data = card.data as Raw;
  const listed = Array.isArray(data.assets)
    ? data.assets
    : [{ type: "icon", uri: "ccdefault:", name: "main", ext: "png" }];
  let placed = false;
  const assets = listed.map((a) => {
    if (!isRecord(a) || a.type !== "icon" || a.uri !== "ccdefault:") return a;
    placed = true;
    return { ...a, uri: ICON_URI, ext: "png" };
  });
  if (!placed) return { card, others: [] };
  return {
    card: { ...card, data: { ...data, assets } },
    others: [{ name: ICON_FILE, data: withoutCard(png, file) }],
  };
}

export async function renderBook(
  cards: ExportCard[],
  format: ExportFormat,
  opts: RenderOptions = {},
): Promise<ExportFile> {
  const bookName = opts.bookName ?? "lorecards";
  if (format === "st") {
    const book = writeWorldInfo(inIdOrder(withKeptIds(cards, "uid")));
    return jsonFile(book, "lorecards-worldinfo.json", cards.length);
  }
  const entries = writeLorebookEntries(withKeptIds(cards, "id"));
  if (format === "lorebook_v3") {
    return jsonFile(
      { spec: "lorebook_v3", data: { name: bookName, extensions: {}, entries } },
      "lorecards-lorebook.json",
      cards.length,
    );
  }
  const now = (opts.now ?? Date.now)();
  const base = await loadBase(opts.base, bookName, now);
  const card = withBook(base.card, entries, bookName, now);
  if (format === "card-json") return jsonFile(card, "lorecards-card.json", cards.length);
  if (format === "card-png") {
    const image = base.png ?? tinyPng();
    const texts = { ccv3: JSON.stringify(card), chara: JSON.stringify(toV2Backfill(card)) };
    const bytes = embedCard(image, texts, opts.base?.filename ?? "base image");
    return {
      bytes,
      contentType: "image/png",
      filename: "lorecards-card.png",
      cards: cards.length,
      skipped: [],
    };
  }
  const carried =
    base.png && !base.others
      ? withPicture(card, base.png, opts.base?.filename ?? "base image")
      : { card, others: base.others ?? [] };
  const bytes = await writeCharx(JSON.stringify(carried.card, null, 2), carried.others);
  return {
    bytes,
    contentType: "application/zip",
    filename: "lorecards-card.charx",
    cards: cards.length,
    skipped: [],
  };
}
