/**
 * The fast door to frontmatter YAML (issue 13: `yaml` costs ~100 µs a card, Bun's native parser ~2):
 * `Bun.YAML.parse`, used only on frontmatter written in a few simple shapes, where it gives the same
 * values as `yaml`'s core schema (_frontmatter.ts, the full path). Every line must be a comment, a
 * `key: value` line or a `- item` line, indented as plain block YAML nests them; a value must be one
 * line: a quoted string, a plain word, `[a, "b"]`, `{}`, or a `|` / `>` block under a key. Anything
 * else (anchors, tags, multi-line flows, complex keys, tabs, control characters, `+0x1`-style numbers
 * the two parsers read differently) declines, and the card is read by the full path instead. The keys
 * Bun returns must be the keys the lines name, in order, which also declines duplicate keys.
 */

/** Characters and spellings either parser might read its own way: the whole frontmatter declines. */
const UNSURE =
  /[\t\0-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|[+-]0[xXoO]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const KEY_LINE = /^( *)([A-Za-z_][\w-]*):(?: +(.*))?$/;
const ITEM_LINE = /^( *)-(?: +(.*))?$/;
const SKIPPED_LINE = /^ *(?:#.*)?$/;
/** Keys `yaml` reads as null or a boolean (`null:` is the key ""), and the prototype's. */
const UNSURE_KEYS = new Set("null Null NULL true True TRUE false False FALSE __proto__".split(" "));

/** A plain word's first character: no indicator, and no `- ` (which would be a list item). */
const PLAIN_START = /^(?!-(?: |$))[^\s,[\]{}#&*!|>'"%@`?:]/;
/** What may follow a value: spaces, then maybe a comment. */
const END = /^ *(?: #.*)?$/;
const BLOCK_HEADER = /^[|>][-+]?(?: +#.*)?$/;
/** Characters that end a plain word inside `[...]`; `#` and `:` there decline the whole value. */
const FLOW_STOPS = new Set([",", "[", "]", "{", "}", "#", ":"]);

// The value checks below scan each character once: a regular expression for them backtracks badly
// on long runs of spaces.

/** Just past the quoted string that opens at `at` (a `"` or a `'`), or -1 when it does not close. */
function quotedEnd(v: string, at: number): number {
  const quote = v[at];
  for (let i = at + 1; i < v.length; i++) {
    if (quote === '"' && v[i] === "\\") i++;
    else if (v[i] === quote) {
      if (quote === "'" && v[i + 1] === "'") i++;
      else return i + 1;
    }
  }
  return -1;
}

/** A plain word outside a list: no `: ` (which would open a mapping) or final `:`; ` #` starts a comment. */
function isPlainWord(v: string): boolean {
  const hash = v.indexOf(" #");
  const word = (hash === -1 ? v : v.slice(0, hash)).trimEnd();
  return PLAIN_START.test(word) && !word.includes(": ") && !word.endsWith(":");
}

/** `[a, "b", 'c']` on one line: quoted strings and plain words, nothing nested. */
function isFlowList(v: string): boolean {
  let i = 1;
  const spaces = () => {
    while (v[i] === " ") i++;
  };
  spaces();
  if (v[i] === "]") return END.test(v.slice(i + 1));
  for (;;) {
    spaces();
    if (v[i] === '"' || v[i] === "'") {
      i = quotedEnd(v, i);
      if (i === -1) return false;
    } else {
      const start = i;
      while (i < v.length && !FLOW_STOPS.has(v[i]!)) i++;
      if (!PLAIN_START.test(v.slice(start, i))) return false;
    }
    spaces();
    if (v[i] !== ",") return v[i] === "]" && END.test(v.slice(i + 1));
    i++;
  }
}

/** A one-line value: a quoted string, `[...]`, `{}` or a plain word, then maybe a comment. */
function isOneLine(v: string): boolean {
  if (v[0] === '"' || v[0] === "'") {
    const end = quotedEnd(v, 0);
    return end !== -1 && END.test(v.slice(end));
  }
  if (v[0] === "[") return isFlowList(v);
  if (v.startsWith("{}")) return END.test(v.slice(2));
  return isPlainWord(v);
}

type Shape = "nothing" | "scalar" | "block";

function shapeOf(value: string | undefined): Shape | null {
  if (value === undefined || value === "" || value.startsWith("#")) return "nothing";
  if (isOneLine(value)) return "scalar";
  return BLOCK_HEADER.test(value) ? "block" : null;
}

interface Open {
  indent: number;
  list: boolean;
}

const indentOf = (line: string) => line.length - line.trimStart().length;

/** The keys the lines name, in order, or null when a line is not one of the simple shapes. */
function writtenKeys(src: string): string[] | null {
  const keys: string[] = [];
  const open: Open[] = [{ indent: 0, list: false }];
  let parent = -1; // indent of the key line whose value follows on the next lines, else -1
  let block = -1; // indent of the key line whose `|` / `>` block is being skipped, else -1
  let blockIndent = -1;
  for (const line of src.split("\n")) {
    if (block >= 0) {
      if (line === "") continue;
      const indent = indentOf(line);
      if (indent === line.length) return null;
      if (indent > block) {
        if (blockIndent === -1) blockIndent = indent;
        else if (indent < blockIndent) return null;
        continue;
      }
      block = -1;
    }
    if (SKIPPED_LINE.test(line)) continue;
    const key = KEY_LINE.exec(line);
    const match = key ?? ITEM_LINE.exec(line);
    if (match === null) return null;
    const indent = match[1]!.length;
    const list = key === null;
    if (parent >= 0 && (list ? indent >= parent : indent > parent)) open.push({ indent, list });
    else {
      while (open.length > 0 && (open.at(-1)!.indent > indent || open.at(-1)!.list !== list)) {
        if (open.at(-1)!.indent < indent) return null;
        open.pop();
      }
      if (open.at(-1)?.indent !== indent) return null;
    }
    const shape = shapeOf(key === null ? match[2] : match[3]);
    if (shape === null || (list && shape === "block")) return null;
    parent = !list && shape === "nothing" ? indent : -1;
    if (key !== null) {
      if (UNSURE_KEYS.has(key[2]!)) return null;
      keys.push(key[2]!);
    }
    if (shape === "block") {
      block = indent;
      blockIndent = -1;
    }
  }
  return keys;
}

/** The keys of `value`'s mappings, depth first, in order; false when one is no plain object. */
function parsedKeys(value: object, out: string[]): boolean {
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const [k, v] of Object.entries(value)) {
    out.push(k);
    if (typeof v === "object" && v !== null && !Array.isArray(v) && !parsedKeys(v, out)) return false;
  }
  return true;
}

/**
 * The frontmatter mapping as `yaml`'s core schema reads it, parsed by Bun, or null when `src` is not
 * in the simple shapes (the caller then takes the full path).
 */
export function plainMapping(src: string): Record<string, unknown> | null {
  if (UNSURE.test(src)) return null;
  const keys = writtenKeys(src);
  if (keys === null) return null;
  let value: unknown;
  try {
    value = Bun.YAML.parse(src);
  } catch {
    return null;
  }
  if (value === null) return keys.length === 0 ? {} : null;
  if (typeof value !== "object" || Array.isArray(value)) return null;
  const got: string[] = [];
  if (!parsedKeys(value, got) || got.length !== keys.length) return null;
  return got.every((k, i) => k === keys[i]) ? (value as Record<string, unknown>) : null;
}
