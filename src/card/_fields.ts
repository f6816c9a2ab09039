/**
 * Forgiving frontmatter (README "Card format"): `keywords: Alice, Bob` works like a list, a malformed
 * value falls back to its default and leaves a warning, and keywords stay the strings the user typed
 * (`[yes, no, 2024]` → "yes", "no", "2024": we read the scalar's source, not its YAML type). Boolean
 * fields alone accept the YAML 1.1 spellings people type (yes/no/on/off). A list keeps its first 1,000
 * words, and a list cut short or a title or term over its length limit (limits.ts) leaves a warning.
 * The lorebook fields (context, order, groups, …) are read by _rule-fields.ts into `rules`. A key that
 * looks like a field but is none (`policy: always`) is kept and named in the warnings (_typos.ts).
 */
import { KNOWN_FIELDS } from "./_field-names.ts";
import { readRules } from "./_rule-fields.ts";
import { typoWarnings } from "./_typos.ts";
import {
  isBlank,
  isNothing,
  keptList,
  mapEntries,
  readBool,
  readList,
  readNumber,
  scalarText,
  stringList,
  type Value,
  valueAt,
  type Warn,
} from "./_values.ts";
import { lengthProblem, MAX_TERM_CHARS, MAX_TITLE_CHARS } from "./limits.ts";
import type { CardMeta, Secondary } from "./types.ts";

/** The frontmatter fields of a card, as read (the rest of CardMeta comes from the file and body). */
export type CardFields = Pick<
  CardMeta,
  | "title"
  | "keywords"
  | "aliases"
  | "secondary"
  | "scanDepth"
  | "refs"
  | "priority"
  | "enabled"
  | "inject"
  | "rules"
  | "tags"
>;

export { KNOWN_FIELDS };

/** secondary's parts as written in the frontmatter → their names in Secondary. */
const SECONDARY_PARTS = { all: "all", any: "any", not: "not", not_all: "notAll" } as const;

function readSecondary(value: Value, warn: Warn): Secondary {
  const out: Secondary = { all: [], any: [], not: [], notAll: [] };
  if (isNothing(value)) return out;
  const entries = mapEntries(value);
  if (entries === null) {
    warn("secondary must be a mapping with all / any / not / not_all; ignored");
    return out;
  }
  for (const [name, part] of entries) {
    if (!Object.hasOwn(SECONDARY_PARTS, name)) {
      warn(`secondary.${name} is not all / any / not / not_all; ignored`);
      continue;
    }
    const list = stringList(part);
    const field = SECONDARY_PARTS[name as keyof typeof SECONDARY_PARTS];
    if (list === null) warn(`secondary.${name} must be a word or a list of words; ignored`);
    else out[field] = keptList(`secondary.${name}`, list, MAX_TERM_CHARS, warn);
  }
  return out;
}

function readTitle(value: Value, key: string, warn: Warn): string {
  if (value === undefined) return key;
  const text = scalarText(value);
  if (text !== null && text.trim() !== "") {
    const title = text.trim();
    const long = lengthProblem("title", title, MAX_TITLE_CHARS);
    if (long !== null) warn(long);
    return title;
  }
  if (!isBlank(value)) {
    warn("title must be text; the file name is used");
  }
  return key;
}

/**
 * Read the known fields out of parsed frontmatter: `data` as plain values, `root` as the readers see it
 * (the YAML document's root node, or the same plain data on the fast path). Never throws, except
 * SourceNeeded when a plain `root` has lost a scalar's written text (_values.ts).
 */
export function readFields(
  data: Record<string, unknown>,
  root: Value,
  key: string,
): { fields: CardFields; warnings: string[] } {
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  const list = (name: string, max: number) => readList(name, valueAt(root, name), max, warn);
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
    title: readTitle(valueAt(root, "title"), key, warn),
    keywords: list("keywords", MAX_TERM_CHARS),
    aliases: list("aliases", MAX_TERM_CHARS),
    secondary: readSecondary(valueAt(root, "secondary"), warn),
    scanDepth: readScanDepth(data.scan_depth, warn),
    // A ref names a card by its key or title, so it may be as long as a title.
    refs: list("refs", MAX_TITLE_CHARS),
    priority,
    enabled: flag("enabled"),
    inject: flag("inject"),
  };
  const rules = readRules(data, root, fields.inject, warn);
  if (rules !== undefined) fields.rules = rules;
  const tags = list("tags", MAX_TERM_CHARS);
  if (tags.length > 0) fields.tags = tags;
  warnings.push(...typoWarnings(data));
  return { fields, warnings };
}

function readScanDepth(value: unknown, warn: Warn): number | null {
  if (value === undefined || value === null) return null;
  const n = readNumber(value);
  if (n !== null && Number.isInteger(n) && n >= 0) return n;
  warn(`scan_depth ${JSON.stringify(value)} is not a whole number ≥ 0; the default is used`);
  return null;
}
