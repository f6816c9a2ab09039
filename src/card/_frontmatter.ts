/**
 * The one door to gray-matter and `yaml` (docs: TOOLCHAIN "gray-matter + yaml"). Every caller that
 * needs frontmatter goes through `readFrontmatter`, or `readPlainFrontmatter`, its fast twin: for
 * frontmatter in a few simple shapes it reads the same data with `Bun.YAML` (_plain-yaml.ts, the only
 * other YAML parser cards use) and declines everything else. Nothing else in the program imports
 * either package for cards. Why each guard exists:
 * - options are always passed, so gray-matter never uses its global cache of shared mutable objects;
 * - `---js` / `---coffee` would be evaluated as code by gray-matter's defaults: refused before and inside;
 * - an unclosed `---` would swallow the whole file as frontmatter: we keep the text as body instead;
 * - CRLF and a BOM are normalised first (a stray `\r` otherwise sticks to the last value);
 * - `yaml`'s `maxAliasCount` refuses alias bombs; YAML core schema keeps `yes`/`no` as strings.
 */
import type { Document } from "yaml";
import { describeError, LoreError } from "../errors.ts";
import { grayMatter, yamlLib } from "./_lazy.ts";
import { plainMapping } from "./_plain-yaml.ts";

const CLOSE = "\n---";

/** Where the frontmatter sits in a text (raw or normalised); offsets index into that same text. */
export interface FrontmatterSpan {
  /** Offset of the YAML text (after the opening line). */
  yamlStart: number;
  /** Offset of the `\n` that starts the closing `---` line. */
  yamlEnd: number;
  /** Offset of the body. */
  bodyStart: number;
  language: string;
}

export interface FrontmatterRead {
  data: Record<string, unknown>;
  /**
   * The frontmatter as the field readers see it (_values.ts): the YAML document's root node, or on the
   * fast path the plain `data` itself; null when there is no frontmatter or it holds only comments.
   */
  root: unknown;
  body: string;
  hasFrontmatter: boolean;
  warnings: string[];
}

/** Drop a BOM and turn CRLF / lone CR into LF. */
export function normalizeText(text: string): string {
  const noBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return noBom.includes("\r") ? noBom.replace(/\r\n?/g, "\n") : noBom;
}

/**
 * Locate the frontmatter the way gray-matter does (open `---` not followed by `-`, close at the next
 * `\n---`), or null when the text has none or never closes it. Works on raw text (BOM, CRLF) too.
 */
export function locateFrontmatter(text: string): FrontmatterSpan | null {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (!text.startsWith("---", start) || text.charAt(start + 3) === "-") return null;
  const lineEnd = text.indexOf("\n", start + 3);
  if (lineEnd === -1) return null;
  const language = text.slice(start + 3, lineEnd).trim();
  // Searching from the opening line's own newline lets `---\n---` close an empty block.
  const close = text.indexOf(CLOSE, lineEnd);
  if (close === -1) return null;
  let bodyStart = close + CLOSE.length;
  if (text.charAt(bodyStart) === "\r") bodyStart += 1;
  if (text.charAt(bodyStart) === "\n") bodyStart += 1;
  return { yamlStart: Math.min(lineEnd + 1, close), yamlEnd: close, bodyStart, language };
}

/** Parse YAML text as one mapping, safely. Throws LoreError parse_error. */
export function parseYamlDocument(src: string): Document {
  const doc = yamlLib().parseDocument(src, { schema: "core", uniqueKeys: false, prettyErrors: true });
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    throw new LoreError("parse_error", `frontmatter is not valid YAML: ${first.message}`, { cause: first });
  }
  return doc;
}

function documentToData(doc: Document): Record<string, unknown> {
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new LoreError("parse_error", `frontmatter refused: ${describeError(err)}`, { cause: err });
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new LoreError("parse_error", "frontmatter must be a mapping of `key: value` lines");
  }
  return data as Record<string, unknown>;
}

function refuse(language: string) {
  return () => {
    throw new LoreError("parse_error", `frontmatter language "${language}" is refused: only YAML is read`);
  };
}

/** The read of a (normalised) text that has no frontmatter, or whose `---` never closes. */
function withoutFrontmatter(normal: string): FrontmatterRead {
  const warnings = normal.startsWith("---") && !normal.startsWith("----") ? ["frontmatter never closed"] : [];
  return { data: {}, root: null, body: normal, hasFrontmatter: false, warnings };
}

/**
 * What `readFrontmatter` gives, read without gray-matter and `yaml` (~10× faster), or null when the
 * frontmatter is not in the simple shapes _plain-yaml.ts accepts. Never throws: what would fail
 * declines. `root` is the plain data, whose numbers and booleans have lost their written text.
 */
export function readPlainFrontmatter(text: string): FrontmatterRead | null {
  const normal = normalizeText(text);
  const span = locateFrontmatter(normal);
  if (span === null) return withoutFrontmatter(normal);
  if (span.language !== "") return null;
  const data = plainMapping(normal.slice(span.yamlStart, span.yamlEnd));
  if (data === null) return null;
  return { data, root: data, body: normal.slice(span.bodyStart), hasFrontmatter: true, warnings: [] };
}

/** Read a card's text into frontmatter data + body. Throws LoreError parse_error. */
export function readFrontmatter(text: string): FrontmatterRead {
  const normal = normalizeText(text);
  const span = locateFrontmatter(normal);
  if (span === null) return withoutFrontmatter(normal);
  const lang = span.language.toLowerCase();
  if (lang !== "" && lang !== "yaml" && lang !== "yml") refuse(span.language)();
  let doc: Document | null = null;
  const engines = {
    yaml: {
      parse: (src: string) => {
        doc = parseYamlDocument(src);
        return documentToData(doc);
      },
      stringify: () => {
        throw new LoreError("internal", "serialize cards with serializeCard");
      },
    },
    js: { parse: refuse("js") },
    javascript: { parse: refuse("javascript") },
    coffee: { parse: refuse("coffee") },
    coffeescript: { parse: refuse("coffeescript") },
    json: { parse: refuse("json") },
  };
  let file: { data: Record<string, unknown>; content: string };
  try {
    const matter = grayMatter();
    file = matter(normal, { engines } as unknown as Parameters<typeof matter>[1]);
  } catch (err) {
    if (err instanceof LoreError) throw err;
    throw new LoreError("parse_error", `frontmatter unreadable: ${describeError(err)}`, { cause: err });
  }
  const root = (doc as Document | null)?.contents ?? null;
  return { data: { ...file.data }, root, body: file.content, hasFrontmatter: true, warnings: [] };
}
