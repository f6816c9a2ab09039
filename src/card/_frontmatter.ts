/**
 * The one frontmatter path (docs: TOOLCHAIN "gray-matter + yaml"). Every card's text is split in one
 * place, `locateFrontmatter`, by gray-matter's own rule (an opening `---` not followed by `-`, closed
 * at the next `\n---`), and its YAML read by `Bun.YAML` when it is in a few simple shapes
 * (`readPlainFrontmatter`, _plain-yaml.ts) or else by `yaml` (`readFrontmatter`): the same data either
 * way. Nothing else in the program reads a card's frontmatter. Why each guard exists:
 * - `---js` / `---coffee` would be evaluated as code by gray-matter's defaults: only YAML is read;
 * - an unclosed `---` would swallow the whole file as frontmatter: we keep the text as body instead;
 * - CRLF and a BOM are normalised first (a stray `\r` otherwise sticks to the last value);
 * - `yaml`'s `maxAliasCount` refuses alias bombs; YAML core schema keeps `yes`/`no` as strings.
 * Why the split is ours and gray-matter does not make it (measured with Bun 1.4.4, bench numbers in
 * docs/ARCHITECTURE.md "One frontmatter path"): editing a card in place needs byte offsets in the raw
 * text (BOM and CRLF kept), which gray-matter does not give; rendering a card that fired splits off its
 * body on the hook's hot path, where loading gray-matter costs 5–19 ms (its js-yaml included) or 1–2
 * ms (without); and its split doubles the cost of reading a card, 10 µs to 20 µs (index builds).
 */
import type { Document } from "yaml";
import { describeError, LoreError } from "../errors.ts";
import { yamlLib } from "./_lazy.ts";
import { plainMapping } from "./_plain-yaml.ts";

const CLOSE = "\n---";

/** Where the frontmatter sits in a text (raw or normalised); offsets index into that same text. */
export interface FrontmatterSpan {
  /** Offset of the opening line's own `\n`. */
  openEnd: number;
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
  return { openEnd: lineEnd, yamlStart: Math.min(lineEnd + 1, close), yamlEnd: close, bodyStart, language };
}

/** Parse YAML text as one mapping, safely. Throws LoreError parse_error. */
export function parseYamlDocument(src: string): Document {
  // `logLevel: "error"`: the library's warnings went to stderr as the runtime's own (a template's
  // `created: {{date}}`, a mapping as a key, printed "(node:123) Warning: Keys with collection values…").
  const doc = yamlLib().parseDocument(src, {
    schema: "core",
    uniqueKeys: false,
    prettyErrors: true,
    logLevel: "error",
  });
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
 * What `readFrontmatter` gives, read with `Bun.YAML` instead of `yaml` (~10× faster), or null when the
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
  // From the opening line's newline, as gray-matter hands its engine the block: an error's line
  // number is then the file's own.
  const block = normal.slice(span.openEnd, span.yamlEnd);
  // A block of comments and blank lines only is no data at all (gray-matter's rule).
  if (block.replace(/^\s*#[^\n]+/gm, "").trim() === "") {
    return { data: {}, root: null, body: normal.slice(span.bodyStart), hasFrontmatter: true, warnings: [] };
  }
  const doc = parseYamlDocument(block);
  const data = documentToData(doc);
  return {
    data,
    root: doc.contents ?? null,
    body: normal.slice(span.bodyStart),
    hasFrontmatter: true,
    warnings: [],
  };
}
