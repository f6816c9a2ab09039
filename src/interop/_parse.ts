/**
 * From a file's bytes (or JSON text, or an already parsed JSON value, as the HTTP API receives it) to book entries:
 * detect the format, find the lorebook, map each entry. Format detection: PNG signature, zip
 * (CHARX, also after an image RisuAI puts in front of it), otherwise JSON — a card (spec 13.1), a
 * `lorebook_v3` export, one of the books SillyTavern's World Info import converts (RisuAI, NovelAI,
 * Agnai, KoboldAI), or a World Info book. A book's `entries` win over a top-level `name`, which only
 * makes a V1 character card when there are no entries.
 */

import { describeError, LoreError } from "../errors.ts";
import { MAX_JSON_DEPTH, valueDeeperThan } from "../json-depth.ts";
import { type CardVersion, carriesOnlyABook, detectVersion } from "./_card.ts";
import { type BookSettings, readLorebook } from "./_charbook.ts";
import { embeddedZip, isZip, readCharx, type ZipLimits } from "./_charx.ts";
import { type BookEntry, badFile, isRecord, type Raw } from "./_model.ts";
import { cardTextFromPng, isPng } from "./_png.ts";
import { isWorldInfo, readEntries, readWorldInfo, type SkippedEntry } from "./_st.ts";
import { WORLD_BOOKS, type WorldBookName } from "./_world-books.ts";

export type SourceFormat = "st" | WorldBookName | "lorebook_v3" | "card-json" | "card-png" | "charx";

export interface ParsedBook {
  format: SourceFormat;
  /** The card version a card format held (V1/V2/V3); absent for books. */
  version?: CardVersion;
  /** Which frontmatter key carries the foreign fields: `st` for World Info, `card` otherwise. */
  namespace: "st" | "card";
  name?: string;
  entries: BookEntry[];
  skipped: SkippedEntry[];
  warnings: string[];
  /** The book's own settings (spec 6.3), for the import to report. */
  settings: BookSettings;
  /** The character's name, when a character card carried the book. */
  character?: string;
}

export interface ParseOptions {
  /** The name used in every error message (a path or an upload's file name). */
  filename: string;
  zipLimits?: Partial<ZipLimits>;
}

export async function parseBook(input: Uint8Array | unknown, opts: ParseOptions): Promise<ParsedBook> {
  const file = opts.filename;
  if (typeof input === "string") return parseJsonValue(parseJsonText(input, file, "text"), "card-json", file);
  if (!(input instanceof Uint8Array)) return parseJsonValue(input, "card-json", file);
  if (isPng(input)) {
    const { text, chunk } = cardTextFromPng(input, file);
    return parseJsonValue(parseJsonText(text, file, `PNG chunk "${chunk}"`), "card-png", file);
  }
  const zip = isZip(input) ? input : embeddedZip(input);
  if (zip !== null) {
    const { cardJson } = await readCharx(zip, file, { limits: opts.zipLimits });
    return parseJsonValue(parseJsonText(cardJson, file, "card.json"), "charx", file);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(input);
  } catch (err) {
    throw badFile(file, "neither PNG, CHARX nor UTF-8 JSON", err);
  }
  return parseJsonValue(parseJsonText(text, file, "file"), "card-json", file);
}

function parseJsonText(text: string, file: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badFile(file, `${what} is not valid JSON (${describeError(err)})`, err);
  }
}

function worldBook(
  format: SourceFormat,
  read: { entries: BookEntry[]; skipped: SkippedEntry[] },
  name: unknown,
): ParsedBook {
  const settings: BookSettings = typeof name === "string" && name !== "" ? { name } : {};
  return { format, namespace: "st", name: settings.name, ...read, warnings: [], settings };
}

/** The formats SillyTavern's World Info import takes: the ones it converts (_world-books.ts), and its own. */
function fromWorldBook(json: unknown, file: string): ParsedBook | null {
  const name = isRecord(json) ? json.name : undefined;
  const format = WORLD_BOOKS.find((f) => f.detect(json));
  if (format) {
    const { list, skipped } = format.rows(json as Raw);
    const read = readEntries(list);
    return worldBook(format.format, { entries: read.entries, skipped: [...skipped, ...read.skipped] }, name);
  }
  if (isWorldInfo(json)) return worldBook("st", readWorldInfo(json, file), name);
  return null;
}

function parseJsonValue(json: unknown, container: SourceFormat, file: string): ParsedBook {
  // Every entry field ends up in YAML frontmatter, whose writer overflows the stack on deep values.
  if (valueDeeperThan(json, MAX_JSON_DEPTH)) {
    throw new LoreError("invalid_input", `${file}: the book nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  if (isRecord(json) && json.spec === "lorebook_v3") {
    if (!isRecord(json.data)) throw badFile(file, "lorebook_v3 has no `data` object");
    return fromLorebook(json.data, "lorebook_v3", undefined, [], file);
  }
  if (isRecord(json) && (json.spec === "chara_card_v2" || json.spec === "chara_card_v3")) {
    return fromCard(json, detectVersion(json), container, file);
  }
  if (container === "card-json") {
    const book = fromWorldBook(json, file);
    if (book !== null) return book;
  }
  if (isRecord(json)) {
    const version = detectVersion(json);
    if (version !== "Unknown") return fromCard(json, version, container, file);
  }
  throw badFile(
    file,
    `not a SillyTavern World Info book (nor ${worldBookLabels()} one), a Character Card V1/V2/V3 or a lorebook_v3 export`,
  );
}

function fromCard(card: Raw, version: CardVersion, format: SourceFormat, file: string): ParsedBook {
  if (version === "V1") throw badFile(file, "is a V1 character card, which has no lorebook");
  const data = card.data;
  if (!isRecord(data)) throw badFile(file, `is a ${version} character card without a \`data\` object`);
  const warnings: string[] = [];
  const given = card.spec_version ?? "";
  if (typeof given !== "string" && typeof given !== "number") {
    throw new LoreError("invalid_input", `${file}: the card's \`spec_version\` must be a string or a number`);
  }
  if (version === "V3" && Number.parseFloat(String(given)) > 3) {
    warnings.push(`card spec_version ${given} is newer than 3.0; unknown fields kept`);
  }
  const book = data.character_book;
  if (!isRecord(book))
    throw badFile(file, `is a ${version} character card without a lorebook (character_book)`);
  const parsed = fromLorebook(book, format, version, warnings, file);
  if (carriesOnlyABook(data)) return parsed;
  // The name {{char}} stands for: a V3 card's nickname when it has one (spec 7.1.2), else its name.
  const nickname = version === "V3" && typeof data.nickname === "string" ? data.nickname.trim() : "";
  const name = nickname || (typeof data.name === "string" ? data.name.trim() : "");
  return name === "" ? parsed : { ...parsed, character: name };
}

function fromLorebook(
  book: Raw,
  format: SourceFormat,
  version: CardVersion | undefined,
  warnings: string[],
  file: string,
): ParsedBook {
  if (!Array.isArray(book.entries)) throw badFile(file, "lorebook has no `entries` list");
  const { name, entries, skipped, settings } = readLorebook(book);
  return { format, version, namespace: "card", name, entries, skipped, warnings, settings };
}

/** "a RisuAI, NovelAI, Agnai or KoboldAI": the converted formats, as a message names them. */
function worldBookLabels(): string {
  const labels = WORLD_BOOKS.map((f) => f.label);
  return `a ${labels.slice(0, -1).join(", ")} or ${labels.at(-1)}`;
}
