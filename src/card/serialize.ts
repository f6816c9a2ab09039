/**
 * Card → text. A new card is written fresh; an existing file is edited in place: its YAML document is
 * patched (comments and quoting survive), keys the caller did not mention and that we do not know are
 * kept (README "Card format": unknown frontmatter keys survive every save), and untouched parts keep
 * their bytes. Every text returned has been read back (_readback.ts): a card we could not write so
 * that it reads as meant is refused with LoreError, never returned.
 */
import type { Document, Node } from "yaml";
import { LoreError } from "../errors.ts";
import { findSection, replaceSectionText } from "./_body.ts";
import { KNOWN_FIELDS } from "./_fields.ts";
import { locateFrontmatter, normalizeText, parseYamlDocument, readFrontmatter } from "./_frontmatter.ts";
import { yamlLib } from "./_lazy.ts";
import { plainFrontmatter } from "./_plain-write.ts";
import { assertReadsBack } from "./_readback.ts";
import { LOREBOOK_FIELDS } from "./_rule-fields.ts";
import { stringList } from "./_values.ts";
import { deleteKey, rootMap, setKey, yamlText } from "./_yaml-edit.ts";
import { cardOfRead, type ParseOptions } from "./parse.ts";
import type { Card } from "./types.ts";

/**
 * What an update may change: any frontmatter keys (a value of `undefined` deletes the key), the body.
 * A card field (title, keywords, …, inject) left out is reset to its default; every other key,
 * lorebook fields included, is kept as it is unless named.
 */
export interface CardEdit {
  frontmatter?: Record<string, unknown>;
  body?: string;
}

function scalarList(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => v === null || typeof v !== "object");
}

function sameValue(a: unknown, b: unknown): boolean {
  if (scalarList(a) && scalarList(b)) {
    const x = a as unknown[];
    const y = b as unknown[];
    return x.length === y.length && x.every((v, i) => String(v) === String(y[i]));
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The word lists of a card, which a file may write as one line (`aliases: Mira, Miri`, `tags: "#x"`). */
const WORD_LISTS = new Set(["keywords", "aliases", "refs", "tags"]);

/**
 * Whether a word list read as `a` is the list `b`: a file's one-line list sent back as the list it
 * reads as is unchanged, and kept as written (an editor save turned Obsidian's `tags: "#character"`
 * into a list).
 */
function sameWords(key: string, a: unknown, b: unknown): boolean {
  if (!WORD_LISTS.has(key) || !Array.isArray(b) || typeof a !== "string") return false;
  const words = stringList(a)?.words;
  return words !== undefined && words.length === b.length && words.every((w, i) => w === String(b[i]));
}

/** Set a data key without ever touching the prototype (`__proto__` is a key like any other). */
function put(data: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(data, key, { value, writable: true, enumerable: true, configurable: true });
}

const nodeData = (doc: Document, node: Node) =>
  yamlLib().isNode(node) ? node.toJS(doc, { maxAliasCount: 100 }) : node;

function frontmatterText(data: Record<string, unknown>): { yaml: string; meant: Record<string, unknown> } {
  const doc = new (yamlLib().Document)({});
  const map = rootMap(doc);
  const meant: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (v !== undefined) put(meant, k, nodeData(doc, setKey(doc, map, k, v)));
  }
  return { yaml: yamlText(doc), meant };
}

function ensureFinalNewline(body: string): string {
  return body === "" || body.endsWith("\n") ? body : `${body}\n`;
}

/** The body as parseCard reads it from a card file's text. */
function bodyOf(text: string): string {
  const normal = normalizeText(text);
  const span = locateFrontmatter(normal);
  return span === null ? normal : normal.slice(span.bodyStart);
}

const LOREBOOK = new Set<string>(LOREBOOK_FIELDS);
const CARD_FIELDS = new Set<string>(KNOWN_FIELDS);

/**
 * The keys of a new card in the order they are written: every other key as the draft gives it, and
 * the lorebook fields (an import sets many) together in their table order (_rule-fields.ts), right
 * after the last of the card's own fields (title, keywords, …), so they never land among foreign keys.
 */
function ordered(data: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(data);
  if (!keys.some((k) => LOREBOOK.has(k))) return data;
  const rest = keys.filter((k) => !LOREBOOK.has(k));
  let at = 0;
  rest.forEach((k, i) => {
    if (CARD_FIELDS.has(k)) at = i + 1;
  });
  const lorebook = LOREBOOK_FIELDS.filter((k) => Object.hasOwn(data, k));
  const out: Record<string, unknown> = {};
  for (const k of [...rest.slice(0, at), ...lorebook, ...rest.slice(at)]) put(out, k, data[k]);
  return out;
}

/**
 * A new card's frontmatter as YAML text and as it should read back: by the fast writer when it takes
 * the data (_plain-write.ts: the same bytes, several times sooner), else through a YAML Document.
 * `fast: false` forces the Document, the writer the fast one is held to (test/card/plain-write.test.ts).
 */
export function newFrontmatter(
  frontmatter: Record<string, unknown>,
  fast = true,
): { yaml: string; meant: Record<string, unknown>; fast: boolean } {
  const data = ordered(frontmatter);
  const plain = fast ? plainFrontmatter(data) : null;
  return plain === null ? { ...frontmatterText(data), fast: false } : { ...plain, fast: true };
}

/** A whole new card file. LoreError invalid_input when it would not read back as given. */
export function serializeCard(draft: { frontmatter: Record<string, unknown>; body: string }): string {
  return newCardText(draft).text;
}

/**
 * A whole new card file and the card it parses as (what parseCard gives with `opts`), from the one
 * read the read-back check makes: an import indexes the cards it writes without reading them again.
 */
export function serializeParsedCard(
  draft: { frontmatter: Record<string, unknown>; body: string },
  opts: ParseOptions,
): { text: string; card: Card } {
  const { text, read, plain } = newCardText(draft);
  return { text, card: cardOfRead(text, opts, read, plain) };
}

function newCardText(draft: { frontmatter: Record<string, unknown>; body: string }) {
  const body = ensureFinalNewline(normalizeText(draft.body));
  const { yaml, meant } = newFrontmatter(draft.frontmatter);
  const text = `---\n${yaml}---\n${body}`;
  return { text, ...assertReadsBack(text, { data: meant, body }) };
}

/** The defaults of the card fields a write leaves out when they hold them (api/_card-json.ts). */
const FIELD_DEFAULTS: Partial<Record<(typeof KNOWN_FIELDS)[number], unknown>> = {
  keywords: [],
  aliases: [],
  refs: [],
  tags: [],
  priority: 0,
  enabled: true,
  inject: true,
};

/**
 * Patch a YAML document; returns false when nothing changed. `meant` (the data as read) is updated to
 * what the patched document should read as.
 */
function patchDocument(doc: Document, edits: Record<string, unknown>, meant: Record<string, unknown>) {
  const map = rootMap(doc);
  const current = { ...meant };
  let changed = false;
  const drop = (k: string) => {
    changed = deleteKey(doc, map, k) || changed;
    delete meant[k];
  };
  for (const [k, v] of Object.entries(edits)) {
    if (v === undefined) drop(k);
    else if (!Object.hasOwn(current, k) || !(sameValue(current[k], v) || sameWords(k, current[k], v))) {
      put(meant, k, nodeData(doc, setKey(doc, map, k, v)));
      changed = true;
    }
  }
  // A card field the caller left out is reset to its default (the editor's form holds every one, and
  // sends a default as nothing); one the file spells out as its default already stays as written.
  // Every other key, the lorebook fields included, survives unless deleted by name.
  for (const k of KNOWN_FIELDS) {
    if (k === "kind" || !Object.hasOwn(current, k) || Object.hasOwn(edits, k)) continue;
    if (!(Object.hasOwn(FIELD_DEFAULTS, k) && sameValue(current[k], FIELD_DEFAULTS[k]))) drop(k);
  }
  return changed;
}

/** The frontmatter data of a card's text as parseCard reads it ({} when it has none). */
function dataOf(text: string): Record<string, unknown> {
  return { ...readFrontmatter(text).data };
}

/**
 * Set or remove (undefined) the named frontmatter keys of a card file's text and nothing else: the
 * other card fields are kept as they are, where `updateCardText` resets the ones an edit leaves out.
 */
export function setFields(oldText: string, fields: Record<string, unknown>): string {
  const current = dataOf(oldText);
  const kept: Record<string, unknown> = {};
  for (const k of KNOWN_FIELDS) if (Object.hasOwn(current, k)) kept[k] = current[k];
  return updateCardText(oldText, { frontmatter: { ...kept, ...fields } });
}

/**
 * Apply `edits` to an existing card file's text, keeping everything not edited byte for byte
 * (the BOM and CRLF line endings included). LoreError parse_error when the old frontmatter cannot be
 * edited, invalid_input when the result would not read back as meant.
 */
export function updateCardText(oldText: string, edits: CardEdit): string {
  const span = locateFrontmatter(oldText);
  const crlf = oldText.includes("\r\n");
  const eol = (s: string) => (crlf ? s.replace(/\r?\n/g, "\r\n") : s);
  if (span === null || !["", "yaml", "yml"].includes(span.language.toLowerCase())) {
    if (span !== null) throw new LoreError("parse_error", "only YAML frontmatter can be edited");
    const body = edits.body ?? normalizeText(oldText);
    return eol(serializeCard({ frontmatter: edits.frontmatter ?? {}, body }));
  }
  const meant = dataOf(oldText);
  let head = oldText.slice(0, span.bodyStart);
  let headKept = true;
  if (edits.frontmatter !== undefined) {
    const doc = parseYamlDocument(normalizeText(oldText.slice(span.yamlStart, span.yamlEnd + 1)));
    if (patchDocument(doc, edits.frontmatter, meant)) {
      // `---\n---`: the opening line's newline is also the one before the closing fence.
      let open = oldText.slice(0, span.yamlStart);
      if (!open.endsWith("\n")) open = `${open.replace(/\r$/, "")}${eol("\n")}`;
      head = `${open}${eol(yamlText(doc))}${eol("---\n")}`;
      headKept = false;
    }
  }
  const newBody = edits.body === undefined ? undefined : ensureFinalNewline(normalizeText(edits.body));
  // The closing fence may carry more on its line (`--- `): that rest was body, and a new body replaces it.
  if (newBody !== undefined && headKept) head = `${oldText.slice(0, span.yamlEnd + 4)}${eol("\n")}`;
  const text = head + (newBody === undefined ? oldText.slice(span.bodyStart) : eol(newBody));
  assertReadsBack(text, { data: meant, body: newBody ?? bodyOf(oldText) });
  return text;
}

/**
 * Replace only the text of one section in a card file (append it when missing); all else unchanged.
 * A file whose opening `---` never closes has no frontmatter; a `---` line in the new text would close
 * it, so such a file first gets an empty frontmatter (`---\n---\n`) and keeps its whole text as body.
 */
export function replaceSection(oldText: string, heading: string, content: string): string {
  const span = locateFrontmatter(oldText);
  let text = replaceSectionText(oldText, heading, content, span?.bodyStart ?? 0);
  if (span === null && locateFrontmatter(text) !== null) {
    const bom = text.charCodeAt(0) === 0xfeff ? "\uFEFF" : "";
    const eol = oldText.includes("\r\n") ? "\r\n" : "\n";
    text = `${bom}---${eol}---${eol}${text.slice(bom.length)}`;
  }
  const { body } = assertReadsBack(text, { data: dataOf(oldText) });
  const want = content.replace(/\r\n?/g, "\n").replace(/^\n+/, "").trimEnd();
  const got = findSection(body, heading);
  if (got === undefined || !body.slice(got.textStart).startsWith(want)) {
    throw new LoreError("invalid_input", `the ${heading} section would not read back as written`);
  }
  return text;
}
