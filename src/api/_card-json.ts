/**
 * Cards as the API takes them (docs/HTTP-API.md): the mapping from a request body in the shape of the
 * editor's form (card/ `cardForm`, which the API sends) to the frontmatter and body a write needs.
 */
import { assertCardLimits, KNOWN_FIELDS, ruleFieldProblem, wordsOfLine } from "../card/index.ts";
import type { KindDef, KindsConfig } from "../card/types.ts";
import { LoreError } from "../errors.ts";

const KNOWN = new Set<string>(KNOWN_FIELDS);
/** Keys of the form (card/ `cardForm`) that are not frontmatter. */
// `rules` and `macros` are read-only views of the card (card/json.ts) and `checks` a save's answer
// (_routes.ts): a script that sends back what it read must not find them written into the card.
const RESERVED = new Set([
  "key",
  "kind",
  "path",
  "mtime",
  "fields",
  "extra",
  "preamble",
  "body",
  "warnings",
  "rules",
  "macros",
  "checks",
]);

function bad(message: string): LoreError {
  return new LoreError("invalid_input", message);
}

/** A list of words: a JSON array of strings, or one comma-separated string. */
function wordList(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return wordsOfLine(value);
  if (Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number")) {
    return value.map((v) => String(v).trim()).filter(Boolean);
  }
  throw bad(`${name} must be a list of words`);
}

function secondaryOf(value: unknown): Record<string, string[]> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value))
    throw bad("secondary must be {all, any, not, not_all}");
  const out: Record<string, string[]> = {};
  for (const part of ["all", "any", "not", "not_all"] as const) {
    const words = wordList((value as Record<string, unknown>)[part], `secondary.${part}`);
    if (words.length > 0) out[part] = words;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function integer(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const n = typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n)) throw bad(`${name} must be a whole number`);
  return n;
}

function flag(value: unknown, name: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw bad(`${name} must be true or false`);
  return value;
}

/**
 * The frontmatter a write stores: known fields written sparsely (a default is simply left out, so the
 * file stays as short as the user's own), then the unknown keys from `extra` and the top level. A
 * title, term or list over the card limits (card/limits.ts) is refused, naming the field, and so is a
 * lorebook field at the top level whose value could not be used (inside `extra`, one is kept as written).
 */
export function frontmatterOf(input: Record<string, unknown>, kind: KindDef, key: string) {
  const fm: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (KNOWN.has(k) || RESERVED.has(k)) continue;
    // A lorebook field given here is checked as `check` reads it; inside `extra` it is kept as written.
    const problem = ruleFieldProblem(k, v);
    if (problem !== null) throw bad(problem);
    fm[k] = v;
  }
  if (input.extra !== undefined) {
    if (input.extra === null || typeof input.extra !== "object" || Array.isArray(input.extra)) {
      throw bad("extra must be an object of frontmatter keys");
    }
    for (const [k, v] of Object.entries(input.extra)) {
      if (KNOWN.has(k) || RESERVED.has(k)) throw bad(`extra may not set "${k}"; it is a field of its own`);
      fm[k] = v;
    }
  }
  if (input.title !== undefined && typeof input.title !== "string") throw bad("title must be a string");
  const title = typeof input.title === "string" && input.title.trim() !== "" ? input.title.trim() : key;
  const known: Record<string, unknown> = { title };
  if (kind.dir !== "") known.kind = kind.name;
  const lists = { keywords: input.keywords, aliases: input.aliases, refs: input.refs, tags: input.tags };
  for (const [name, value] of Object.entries(lists)) {
    const words = wordList(value, name);
    if (words.length > 0) known[name] = words;
  }
  const secondary = secondaryOf(input.secondary);
  if (secondary) known.secondary = secondary;
  assertCardLimits({
    title,
    keywords: known.keywords as string[] | undefined,
    aliases: known.aliases as string[] | undefined,
    refs: known.refs as string[] | undefined,
    secondary,
    tags: known.tags as string[] | undefined,
  });
  const depth = integer(input.scan_depth, "scan_depth");
  if (depth !== undefined) {
    if (depth < 0) throw bad("scan_depth must be 0 or more");
    known.scan_depth = depth;
  }
  const priority = integer(input.priority, "priority");
  if (priority !== undefined && priority !== 0) known.priority = priority;
  if (flag(input.enabled, "enabled") === false) known.enabled = false;
  if (flag(input.inject, "inject") === false) known.inject = false;
  return { ...known, ...fm };
}

function sectionOrder(fields: Record<string, unknown>, kind: KindDef, kinds: KindsConfig): string[] {
  const order = [...kind.sections, ...kinds.privateSections];
  for (const h of Object.keys(fields)) if (!order.includes(h)) order.push(h);
  return order.filter((h) => h in fields);
}

/**
 * The Markdown body: `body` verbatim when given; otherwise the preamble, then each non-empty field as
 * a `## heading` (the kind's sections in table order, then private ones, then the user's own);
 * undefined when the request says nothing about the body (an update then keeps it).
 */
/** A body as compared for agreement: line endings, trailing spaces and blank-line runs aside. */
function normalized(body: string): string {
  return body
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

export function bodyOf(
  input: Record<string, unknown>,
  kind: KindDef,
  kinds: KindsConfig,
): string | undefined {
  if (input.body !== undefined) {
    if (typeof input.body !== "string") throw bad("body must be a string");
    // GET returns both shapes: a client that edits one and sends both back must not lose its edit.
    if (input.fields !== undefined || input.preamble !== undefined) {
      const fromFields = bodyOf({ fields: input.fields, preamble: input.preamble }, kind, kinds) ?? "";
      if (normalized(fromFields) !== normalized(input.body))
        throw bad(
          "body and fields say different things: send back only the one you changed, with the rest of the " +
            "card (a PUT replaces the card; GET returns both), or PATCH the change alone",
        );
    }
    return input.body;
  }
  if (input.fields === undefined && input.preamble === undefined) return undefined;
  const fields = (input.fields ?? {}) as Record<string, unknown>;
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
    throw bad("fields must be an object of section → text");
  }
  const parts: string[] = [];
  if (input.preamble !== undefined && typeof input.preamble !== "string")
    throw bad("preamble must be a string");
  const preamble = ((input.preamble as string | undefined) ?? "").trim();
  if (preamble) parts.push(preamble);
  for (const heading of sectionOrder(fields, kind, kinds)) {
    const text = fields[heading];
    if (typeof text !== "string") throw bad(`fields["${heading}"] must be a string`);
    if (/[\r\n]/.test(heading) || heading.trim() === "")
      throw bad("a section heading must be one non-empty line");
    if (text.trim() !== "") parts.push(`## ${heading.trim()}\n${text.replace(/\s+$/, "")}`);
  }
  return parts.length === 0 ? "" : `${parts.join("\n\n")}\n`;
}

/**
 * A PATCH's card: `change` over the card's form as GET gives it (`form`). A top-level field sent
 * replaces the card's; `fields` and `extra` are merged one level down, where a section sent empty is
 * removed, as a PUT drops it, and an extra key sent as null is removed. `body` sent replaces the
 * whole text, fields and preamble with it. Only the change's `mtime` counts for the conflict check.
 */
export function patched(
  form: Record<string, unknown>,
  change: Record<string, unknown>,
): Record<string, unknown> {
  const { body: _body, fields, preamble, extra, mtime: _mtime, ...rest } = form;
  // The form spreads the card's unknown keys at its top level too; `extra` alone carries them here.
  for (const k of Object.keys(extra as object)) delete rest[k];
  const out: Record<string, unknown> = { ...rest, ...change };
  if (change.body === undefined) {
    out.fields =
      change.fields === undefined ? fields : { ...(fields as object), ...objectOf(change.fields, "fields") };
    out.preamble = change.preamble ?? preamble;
  }
  const extras = {
    ...(extra as object),
    ...(change.extra === undefined ? {} : objectOf(change.extra, "extra")),
  };
  out.extra = Object.fromEntries(Object.entries(extras).filter(([, v]) => v !== null));
  return out;
}

function objectOf(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw bad(`${name} must be an object`);
  return value as Record<string, unknown>;
}
