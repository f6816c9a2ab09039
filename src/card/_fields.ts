/**
 * Forgiving frontmatter (README "Card format"): `keywords: Alice, Bob` works like a list, a malformed
 * value falls back to its default and leaves a warning, and keywords stay the strings the user typed
 * (`[yes, no, 2024]` → "yes", "no", "2024": we read the scalar's source, not its YAML type). Boolean
 * fields alone accept the YAML 1.1 spellings people type (yes/no/on/off). A list keeps its first 1,000
 * words, and a list cut short or a title or term over its length limit (limits.ts) leaves a warning.
 */
import type { Document, Node } from "yaml";
import { yamlLib } from "./_lazy.ts";
import { formatCount, lengthProblem, MAX_LIST_WORDS, MAX_TERM_CHARS, MAX_TITLE_CHARS } from "./limits.ts";
import type { CardMeta, Secondary } from "./types.ts";

const isMap = (n: unknown) => yamlLib().isMap(n);
const isScalar = (n: unknown) => yamlLib().isScalar(n);
const isSeq = (n: unknown) => yamlLib().isSeq(n);

/** The frontmatter fields of a card, as read (the rest of CardMeta comes from the file and body). */
export type CardFields = Pick<
  CardMeta,
  "title" | "keywords" | "aliases" | "secondary" | "scanDepth" | "refs" | "priority" | "enabled" | "inject"
>;

/** The frontmatter keys this module understands; every other key is kept verbatim. */
export const KNOWN_FIELDS = [
  "kind",
  "title",
  "keywords",
  "aliases",
  "secondary",
  "scan_depth",
  "refs",
  "priority",
  "enabled",
  "inject",
] as const;

const LIST_SEPARATORS = /[,，、]/;
const TRUE_WORDS = new Set(["true", "yes", "y", "on", "1"]);
const FALSE_WORDS = new Set(["false", "no", "n", "off", "0"]);

function nodeOf(parent: unknown, key: string): Node | undefined {
  if (!isMap(parent)) return undefined;
  // The last pair wins, as in toJS() with duplicate keys.
  for (const pair of [...parent.items].reverse()) {
    const k = isScalar(pair.key) ? pair.key.value : pair.key;
    if (String(k) === key) return (pair.value ?? undefined) as Node | undefined;
  }
  return undefined;
}

function scalarText(node: Node): string | null {
  if (!isScalar(node) || node.value === null) return null;
  if (typeof node.value === "string") return node.value;
  return node.source ?? String(node.value);
}

/**
 * A string list from a node: a YAML list, or one comma-separated string, without empties or repeats.
 * Null when malformed. Every word is counted (for the warning) but only the first MAX_LIST_WORDS
 * are kept.
 */
function stringList(node: Node | undefined): { words: string[]; total: number } | null {
  if (node === undefined || (isScalar(node) && node.value === null)) return { words: [], total: 0 };
  const seen = new Set<string>();
  const push = (s: string) => {
    const t = s.trim();
    if (t !== "") seen.add(t);
  };
  if (isSeq(node)) {
    for (const item of node.items) {
      if (!isScalar(item)) return null;
      const text = scalarText(item);
      if (text !== null) push(text);
    }
  } else {
    const text = scalarText(node);
    if (text === null) return null;
    for (const part of text.split(LIST_SEPARATORS)) push(part);
  }
  const words = [...seen];
  return { words: words.length > MAX_LIST_WORDS ? words.slice(0, MAX_LIST_WORDS) : words, total: seen.size };
}

/** The list as kept, with a warning when it was cut or holds a word longer than `max` characters. */
function keptList(
  name: string,
  got: { words: string[]; total: number },
  max: number,
  warn: (m: string) => void,
) {
  if (got.total > MAX_LIST_WORDS) {
    warn(
      `${name} has ${formatCount(got.total)} words; only the first ${formatCount(MAX_LIST_WORDS)} are used`,
    );
  }
  const long = got.words.findIndex((w) => lengthProblem(name, w, max) !== null);
  if (long !== -1) warn(lengthProblem(`${name}[${long}]`, got.words[long]!, max)!);
  return got.words;
}

function readBool(value: unknown): boolean | null {
  if (typeof value === "boolean") return value;
  // A mapping or list is no yes/no (and String() throws on `{toString: 0}`).
  if (typeof value === "object" && value !== null) return null;
  const word = String(value).trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return null;
}

function readNumber(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^\s*[+-]?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return null;
}

function readSecondary(node: Node | undefined, warn: (m: string) => void): Secondary {
  const empty: Secondary = { all: [], any: [], not: [] };
  if (node === undefined || (isScalar(node) && node.value === null)) return empty;
  if (!isMap(node)) {
    warn("secondary must be a mapping with all / any / not; ignored");
    return empty;
  }
  const out: Secondary = { all: [], any: [], not: [] };
  for (const pair of node.items) {
    const name = String(isScalar(pair.key) ? pair.key.value : pair.key);
    if (name !== "all" && name !== "any" && name !== "not") {
      warn(`secondary.${name} is not all / any / not; ignored`);
      continue;
    }
    const list = stringList((pair.value ?? undefined) as Node | undefined);
    if (list === null) warn(`secondary.${name} must be a word or a list of words; ignored`);
    else out[name] = keptList(`secondary.${name}`, list, MAX_TERM_CHARS, warn);
  }
  return out;
}

/** Read the known fields out of parsed frontmatter, never throwing. */
export function readFields(
  data: Record<string, unknown>,
  doc: Document | null,
  key: string,
): { fields: CardFields; warnings: string[] } {
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  const root = doc?.contents ?? null;
  const list = (name: string, max: number): string[] => {
    const got = stringList(nodeOf(root, name));
    if (got !== null) return keptList(name, got, max, warn);
    warn(`${name} must be a word, a comma-separated line or a list of words; ignored`);
    return [];
  };
  const titleNode = nodeOf(root, "title");
  let title = key;
  if (titleNode !== undefined) {
    const text = scalarText(titleNode);
    if (text !== null && text.trim() !== "") {
      title = text.trim();
      const long = lengthProblem("title", title, MAX_TITLE_CHARS);
      if (long !== null) warn(long);
    } else if (!(isScalar(titleNode) && (titleNode.value === null || titleNode.value === ""))) {
      warn("title must be text; the file name is used");
    }
  }
  const scanDepth = readScanDepth(data.scan_depth, warn);
  let priority = 0;
  if (data.priority !== undefined && data.priority !== null) {
    const n = readNumber(data.priority);
    if (n === null) warn(`priority ${JSON.stringify(data.priority)} is not a number; 0 is used`);
    else priority = n;
  }
  const flag = (name: "enabled" | "inject"): boolean => {
    const v = data[name];
    if (v === undefined || v === null) return true;
    const b = readBool(v);
    if (b === null) warn(`${name} ${JSON.stringify(v)} is not yes/no; true is used`);
    return b ?? true;
  };
  const fields: CardFields = {
    title,
    keywords: list("keywords", MAX_TERM_CHARS),
    aliases: list("aliases", MAX_TERM_CHARS),
    secondary: readSecondary(nodeOf(root, "secondary"), warn),
    scanDepth,
    // A ref names a card by its key or title, so it may be as long as a title.
    refs: list("refs", MAX_TITLE_CHARS),
    priority,
    enabled: flag("enabled"),
    inject: flag("inject"),
  };
  return { fields, warnings };
}

function readScanDepth(value: unknown, warn: (m: string) => void): number | null {
  if (value === undefined || value === null) return null;
  const n = readNumber(value);
  if (n !== null && Number.isInteger(n) && n >= 0) return n;
  warn(`scan_depth ${JSON.stringify(value)} is not a whole number ≥ 0; the default is used`);
  return null;
}
