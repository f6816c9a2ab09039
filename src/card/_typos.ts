/**
 * Frontmatter keys that look like a field a card has but are not one (`policy: always`, the writing
 * app's word; `constant: true`, SillyTavern's; `keyword:`, `Keywords:`, `scanDepth:`): kept as written
 * like every unknown key, and named in the card's warnings (so `check` and the editor say them) with
 * the field and value meant. Keys that look like none (`emails:`, `created:`) are the person's own and
 * are not mentioned.
 */
import { KNOWN_FIELDS } from "./_field-names.ts";
import { LOREBOOK_FIELDS } from "./_rule-fields.ts";

/** Every top-level key a card reads, or that lorecards writes and keeps (`st:`, `card:` from imports). */
const FIELDS = [...KNOWN_FIELDS, ...LOREBOOK_FIELDS];
const KEPT = new Set([...FIELDS, "st", "card"]);

/** The seed's and SillyTavern's / the card spec's words for our fields: key → what to write instead. */
const SPELLED_ELSEWHERE: Record<string, (value: unknown) => string> = {
  policy: (v) => `context: ${policyOf(v) ?? "always"}`,
  context_policy: (v) => `context: ${policyOf(v) ?? "always"}`,
  constant: (v) => (v === false ? "context: automatic" : "context: always"),
  disable: (v) => (v === false ? "enabled: true" : "enabled: false"),
  disabled: (v) => (v === false ? "enabled: true" : "enabled: false"),
  key: () => "keywords",
  keys: () => "keywords",
  primary_keys: () => "keywords",
  triggers: () => "keywords",
  alias: () => "aliases",
  secondary_keys: () => "secondary: { any: [...] }",
  keysecondary: () => "secondary: { any: [...] }",
  insertion_order: () => "order",
  use_regex: () => "regex",
  match_whole_words: () => "whole_words",
  scan_depth_messages: () => "scan_messages",
  name: () => "title",
  comment: () => "title",
};

/** The seed's context policies, as people write them ("Always include", "Manual only"). */
function policyOf(value: unknown): string | undefined {
  const v = String(value ?? "").toLowerCase();
  for (const p of ["always", "automatic", "manual", "never"]) if (v.startsWith(p.slice(0, 4))) return p;
  return undefined;
}

function snake(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[-\s]+/g, "_")
    .toLowerCase();
}

/** Levenshtein distance, stopping early past `max`. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      best = Math.min(best, row[j]!);
    }
    if (best > max) return max + 1;
    prev = row;
  }
  return prev[b.length]!;
}

/** What `key` (with `value`) was likely meant as, or undefined when it looks like no field. */
export function meantField(key: string, value: unknown): string | undefined {
  if (KEPT.has(key)) return undefined;
  const plain = snake(key);
  // Own keys only: a frontmatter key `__proto__` or `constructor` must not find Object's.
  const elsewhere = Object.hasOwn(SPELLED_ELSEWHERE, plain) ? SPELLED_ELSEWHERE[plain] : undefined;
  if (elsewhere) return elsewhere(value);
  if (KEPT.has(plain)) return plain;
  if (plain.length < 4) return undefined;
  const close = FIELDS.find(
    (f) => distance(plain, f, plain.length < 7 ? 1 : 2) <= (plain.length < 7 ? 1 : 2),
  );
  return close;
}

/** One warning per frontmatter key that looks like a field but is none. */
export function typoWarnings(data: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    const meant = meantField(key, value);
    if (meant !== undefined)
      out.push(`unknown key "${key}" is kept but does nothing: did you mean \`${meant}\`?`);
  }
  return out;
}
