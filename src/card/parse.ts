/**
 * Text → Card. Pure: the caller supplies the key, kind, path and file stats. Private sections are
 * flagged here and cut out by `publicText`, the only text the engine may match on or inject.
 * A card is read by the fast path when it can be (plain values from Bun's YAML parser, for frontmatter
 * in the simple shapes: _plain-yaml.ts), else by the full path (`yaml` nodes); both split the text one way (_frontmatter.ts) and give
 * the same Card (test/card/plain-path.test.ts holds them to it), the fast one several times sooner.
 */
import { describeError, LoreError } from "../errors.ts";
import { scanSections } from "./_body.ts";
import { readFields } from "./_fields.ts";
import {
  type FrontmatterRead,
  locateFrontmatter,
  normalizeText,
  readFrontmatter,
  readPlainFrontmatter,
} from "./_frontmatter.ts";
import { SourceNeeded } from "./_values.ts";
import { defaultKinds, isPrivateSection } from "./kinds.ts";
import type { Card, CardMeta, KindsConfig, Section } from "./types.ts";

export interface ParseOptions {
  kind: string;
  key: string;
  /** Path relative to the vault root; defaults to `<key>.md`. */
  path?: string;
  kinds?: KindsConfig;
  /** File modification time in nanoseconds, as a decimal string; "0" when unknown. */
  mtime?: string;
  /** File size in bytes; defaults to the UTF-8 length of the text. */
  size?: number;
}

function splitBody(body: string, kinds: KindsConfig): { preamble: string; sections: Section[] } {
  const spans = scanSections(body);
  const preamble = body.slice(0, spans[0]?.start ?? body.length);
  const sections = spans.map((s) => ({
    heading: s.heading,
    text: body.slice(s.textStart, s.end),
    private: isPrivateSection(kinds, s.heading),
  }));
  return { preamble, sections };
}

/** Preamble + every non-private section (with its heading line): what matching and injection see. */
export function publicText(card: Pick<Card, "preamble" | "sections">): string {
  let out = card.preamble;
  for (const s of card.sections) {
    if (!s.private) out += `## ${s.heading}\n${s.text}`;
  }
  return out;
}

/**
 * The public text of a card file straight from its text, without parsing the YAML: what `publicText`
 * gives for the parsed card. Rendering a card that fired needs only this, so the hook's hot path never
 * loads the YAML parser.
 */
export function publicTextOf(text: string, kinds: KindsConfig = defaultKinds()): string {
  const normal = normalizeText(text);
  const span = locateFrontmatter(normal);
  return publicText(splitBody(span === null ? normal : normal.slice(span.bodyStart), kinds));
}

function firstLineOf(text: string): string {
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (t !== "" && !t.startsWith("#")) return t;
  }
  return "";
}

function cardOf(
  text: string,
  opts: ParseOptions,
  read: FrontmatterRead,
  { fields, warnings }: ReturnType<typeof readFields>,
): Card {
  const kinds = opts.kinds ?? defaultKinds();
  const { preamble, sections } = splitBody(read.body, kinds);
  const pub = publicText({ preamble, sections });
  return {
    key: opts.key,
    kind: opts.kind,
    path: opts.path ?? `${opts.key}.md`,
    ...fields,
    mtime: opts.mtime ?? "0",
    size: opts.size ?? Buffer.byteLength(text, "utf8"),
    firstLine: firstLineOf(pub),
    publicChars: pub.length,
    frontmatter: read.data,
    preamble,
    sections,
    body: read.body,
    warnings: [...read.warnings, ...warnings],
  };
}

/** The file-name part of a key (`family/Rin` → `Rin`): what a card without a title is called. */
function fileName(key: string): string {
  return key.slice(key.lastIndexOf("/") + 1);
}

/** The card by the fast path, or null when its frontmatter is not in the simple shapes. */
export function parsePlainCard(text: string, opts: ParseOptions): Card | null {
  const read = readPlainFrontmatter(text);
  if (read === null) return null;
  try {
    return cardOf(text, opts, read, readFields(read.data, read.root, fileName(opts.key)));
  } catch (err) {
    if (err instanceof SourceNeeded) return null;
    throw err;
  }
}

/** The card by the full path. Throws LoreError parse_error when the frontmatter cannot be read. */
export function parseFullCard(text: string, opts: ParseOptions): Card {
  let read: FrontmatterRead;
  try {
    read = readFrontmatter(text);
  } catch (err) {
    const where = opts.path ?? `${opts.key}.md`;
    const message = describeError(err);
    throw new LoreError("parse_error", `${where}: ${message}`, { cause: err });
  }
  return cardOf(text, opts, read, readFields(read.data, read.root, fileName(opts.key)));
}

/**
 * What parseCard gives for `text`, from a read of it made already (`plain`: by readPlainFrontmatter, else
 * by readFrontmatter): a writer's read-back check has just read the text it wrote.
 */
export function cardOfRead(text: string, opts: ParseOptions, read: FrontmatterRead, plain: boolean): Card {
  if (!plain) return cardOf(text, opts, read, readFields(read.data, read.root, fileName(opts.key)));
  try {
    return cardOf(text, opts, read, readFields(read.data, read.root, fileName(opts.key)));
  } catch (err) {
    if (err instanceof SourceNeeded) return parseFullCard(text, opts);
    throw err;
  }
}

/** Parse one card file's text. Throws LoreError parse_error when the frontmatter cannot be read. */
export function parseCard(text: string, opts: ParseOptions): Card {
  return parsePlainCard(text, opts) ?? parseFullCard(text, opts);
}

/** The index-sized part of a card. */
export function cardMeta(card: Card): CardMeta {
  return {
    key: card.key,
    kind: card.kind,
    path: card.path,
    title: card.title,
    keywords: card.keywords,
    aliases: card.aliases,
    secondary: card.secondary,
    scanDepth: card.scanDepth,
    refs: card.refs,
    priority: card.priority,
    enabled: card.enabled,
    inject: card.inject,
    mtime: card.mtime,
    size: card.size,
    firstLine: card.firstLine,
    publicChars: card.publicChars,
    ...(card.rules && { rules: card.rules }),
    ...(card.tags && { tags: card.tags }),
  };
}
