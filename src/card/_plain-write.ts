/**
 * The fast writer of a new card's frontmatter (issue 13: building it as a `yaml` Document costs about
 * 100 µs a card, and an import writes thousands). For the data it accepts it writes exactly the text
 * the Document path writes (_yaml-edit.ts `makeNode` + `yamlText`), byte for byte, and the data that
 * text should read back as; anything else declines (null) and goes through the Document as before.
 * test/card/plain-write.test.ts holds the two to the same bytes.
 *
 * Accepted: mappings of plain objects (block style, nested ones indented by two spaces), lists of
 * scalars (flow style, `[a, b]`), strings without a line break, numbers, booleans and null. Declined:
 * line breaks (`yaml` writes block scalars, whose rules we do not copy), lists holding lists or
 * mappings, `__proto__` keys, class instances (anything but a plain object or array), functions,
 * bigints, undefined list items, keys long enough to become explicit (`? key`), and nesting deeper
 * than MAX_DEPTH (which a cycle would reach).
 *
 * The rules below are `yaml` 2.x's (dist/stringify/: stringifyString, stringifyNumber, stringifyPair,
 * stringifyCollection; schema/core: the tags a plain scalar could resolve to), narrowed to what is
 * accepted, with our options: `lineWidth: 0` (nothing is folded, however long) and no padding in
 * flow lists.
 */
import { needsQuotes } from "./_yaml-edit.ts";

const MAX_DEPTH = 16;
/** `yaml` writes a longer key as an explicit `? key` (stringifyPair). */
const MAX_KEY_CHARS = 1024;

/** Characters `yaml` always double-quotes: controls and lone surrogates (stringifyString). */
const FORCE_DOUBLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
/** Strings `yaml` will not write plain, as `plainString` tests them. */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
/** Inside a flow list these characters would end the item: quoted. */
const FLOW_INDICATOR = /[[\]{},]/;
/** A document marker at the start of a root key: quoted (`containsDocumentMarker`). */
const DOC_MARKER = /^(?:%|---|\.\.\.)/;
/** Plain words the core schema reads as null, a boolean, an integer or a float: quoted (their tags' tests). */
const NOT_STRING = new RegExp(
  `^(?:${[
    /(?:~|[Nn]ull|NULL)?/,
    /[Tt]rue|TRUE|[Ff]alse|FALSE/,
    /0o[0-7]+/,
    /[-+]?[0-9]+/,
    /0x[0-9a-fA-F]+/,
    /[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN/,
    /[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+/,
    /[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)/,
  ]
    .map((r) => `(?:${r.source})`)
    .join("|")})$`,
);
/** JSON's escapes, a `\uXXXX` among them with its code. */
const JSON_ESCAPE = /\\(?:u(00[0-9a-f]{2})|.)/g;
/** The `\u00XX` escapes YAML spells its own way (`doubleQuotedString`); other `\u00XX` become `\xXX`. */
const YAML_ESCAPES: Record<string, string> = { "0000": "\\0", "0007": "\\a", "000b": "\\v", "001b": "\\e" };

/** A one-line string double-quoted: JSON's escapes, with YAML's spelling for `\u00XX`. */
function doubleQuoted(s: string): string {
  const json = JSON.stringify(s);
  if (!json.includes("\\u00")) return json;
  return json.replace(JSON_ESCAPE, (seq, code: string | undefined) =>
    code === undefined ? seq : (YAML_ESCAPES[code] ?? `\\x${code.slice(2)}`),
  );
}

/** Quoted the way `quotedString` picks: single quotes when the string holds `"` and no `'`. */
function quoted(s: string): string {
  return s.includes('"') && !s.includes("'") ? `'${s}'` : doubleQuoted(s);
}

type Place = "key" | "root key" | "value" | "flow item";

/** A one-line string as `yaml` writes it at `place`; null (decline) for one with a line break. */
function stringText(s: string, place: Place): string | null {
  if (s.includes("\n")) return null;
  if (needsQuotes(s) || FORCE_DOUBLE.test(s)) return doubleQuoted(s);
  if (place === "flow item" && FLOW_INDICATOR.test(s)) return quoted(s);
  if (NOT_PLAIN.test(s) || NOT_STRING.test(s)) return quoted(s);
  if (place === "root key" && DOC_MARKER.test(s)) return quoted(s);
  return s;
}

/** A number as `stringifyNumber` writes it. */
function numberText(n: number): string {
  if (Number.isNaN(n)) return ".nan";
  if (!Number.isFinite(n)) return n < 0 ? "-.inf" : ".inf";
  return Object.is(n, -0) ? "-0" : JSON.stringify(n);
}

/** A scalar's text, or null when `value` is no scalar we write (or a string we decline). */
function scalarText(value: unknown, place: Place): string | null {
  switch (typeof value) {
    case "string":
      return stringText(value, place);
    case "number":
      return numberText(value);
    case "boolean":
      return value ? "true" : "false";
    default:
      return value === null ? "null" : null;
  }
}

/** A plain object (or one without a prototype), which `yaml` writes as a mapping of its own keys. */
function isObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** `[a, b]`, its items pushed to `meant`; null when an item is no scalar. */
function flowList(list: unknown[], meant: unknown[]): string | null {
  if (list.length === 0) return "[]";
  const items: string[] = [];
  for (const item of list) {
    const text = scalarText(item, "flow item");
    if (text === null) return null;
    items.push(text);
    meant.push(item);
  }
  return `[${items.join(", ")}]`;
}

/** Push the lines of mapping `map` at `indent`, and put its defined entries in `meant`. False declines. */
function mapLines(
  map: Record<string, unknown>,
  indent: string,
  lines: string[],
  meant: Record<string, unknown>,
): boolean {
  if (indent.length > MAX_DEPTH * 2) return false;
  for (const key of Object.keys(map)) {
    const value = map[key];
    if (value === undefined) continue;
    if (key === "__proto__") return false;
    const keyText = stringText(key, indent === "" ? "root key" : "key");
    if (keyText === null || keyText.length > MAX_KEY_CHARS) return false;
    if (Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype) {
      const items: unknown[] = [];
      const text = flowList(value, items);
      if (text === null) return false;
      lines.push(`${indent}${keyText}: ${text}`);
      meant[key] = items;
    } else if (isObject(value)) {
      const inner: Record<string, unknown> = {};
      const at = lines.push(`${indent}${keyText}:`);
      if (!mapLines(value, `${indent}  `, lines, inner)) return false;
      // A mapping with nothing defined in it is written `{}` on the key's line.
      if (lines.length === at) lines[at - 1] += " {}";
      meant[key] = inner;
    } else {
      const text = scalarText(value, "value");
      if (text === null) return false;
      lines.push(`${indent}${keyText}: ${text}`);
      meant[key] = value;
    }
  }
  return true;
}

/**
 * The frontmatter YAML (between the fences, "" for none) of a new card with `data` (already in its
 * written order), and the data it should read back as; null when the Document path must write it.
 */
export function plainFrontmatter(
  data: Record<string, unknown>,
): { yaml: string; meant: Record<string, unknown> } | null {
  const lines: string[] = [];
  const meant: Record<string, unknown> = {};
  if (!mapLines(data, "", lines, meant)) return null;
  return { yaml: lines.length === 0 ? "" : `${lines.join("\n")}\n`, meant };
}
