/**
 * The lorebook fields of a card's frontmatter (README "Lorebook fields") → its CardRules. One table
 * (RULE_FIELDS) says for each field its name, the rule it sets and how its value is read; the
 * frontmatter reading, the card's JSON (json.ts) and the key order of a new card (serialize.ts) all
 * follow it. A malformed value is ignored with a warning naming the field and the value, as every
 * other field is (_fields.ts). The `decorators:` list is resolved by decorators.ts; an explicit field
 * wins over a decorator, and `inject: false` without `context:` means `context: manual`.
 */
import { readBool, readCount, readList, readNumber, type Value, valueAt, type Warn } from "./_values.ts";
import { readDecorators } from "./decorators.ts";
import { MAX_TERM_CHARS } from "./limits.ts";
import { isDefaultRules, POSITIONS, type RuleChanges, rulesWith } from "./rules.ts";
import type { CardPlacement, CardRules, Policy, PromptRole, TierHint } from "./types.ts";

/** A rule a field sets: one of CardRules, or one part of its placement. */
export type RuleKey = Exclude<keyof CardRules, "placement"> | `placement.${keyof CardPlacement}`;

/** The lorebook fields' frontmatter names: the editor's controls are typed against this list. */
export type LorebookField =
  | "context"
  | "case_sensitive"
  | "whole_words"
  | "regex"
  | "scan_messages"
  | "order"
  | "group"
  | "group_override"
  | "group_weight"
  | "group_scoring"
  | "probability"
  | "exclude_recursion"
  | "prevent_recursion"
  | "delay_until_recursion"
  | "sticky"
  | "cooldown"
  | "delay"
  | "ignore_budget"
  | "tier"
  | "position"
  | "depth"
  | "role";

interface RuleField {
  field: LorebookField;
  rule: RuleKey;
  /** The value as the rule holds it, or undefined when the value is unusable. */
  read: (value: unknown, written: Value, warn: Warn) => unknown;
  /** What a usable value looks like, for the warning. */
  want: string;
}

const POLICIES: readonly Policy[] = ["automatic", "always", "manual", "never"];
const ROLES: readonly PromptRole[] = ["system", "user", "assistant"];
const TIER_HINTS: readonly TierHint[] = ["stable", "volatile"];

/** A name from `names`, any case; the first `numbered` also by SillyTavern's number for them (their index). */
function oneOf<T extends string>(names: readonly T[], numbered: number) {
  return (value: unknown): T | undefined => {
    if (typeof value === "number") {
      return Number.isInteger(value) && value >= 0 && value < numbered ? names[value] : undefined;
    }
    return typeof value === "string" ? names.find((n) => n === value.trim().toLowerCase()) : undefined;
  };
}

const bool = (v: unknown) => readBool(v) ?? undefined;
const count = (v: unknown) => readCount(v) ?? undefined;
const whole = (v: unknown) => {
  const n = readNumber(v);
  return n !== null && Number.isInteger(n) ? n : undefined;
};
const between = (lo: number, hi: number) => (v: unknown) => {
  const n = readNumber(v);
  return n !== null && n >= lo && n <= hi ? n : undefined;
};
const positive = (v: unknown) => {
  const n = readNumber(v);
  return n !== null && n > 0 ? n : undefined;
};

const YES_NO = "yes or no";
const COUNT = "a whole number ≥ 0";

/** Every lorebook field, in the order a new card writes them. */
export const RULE_FIELDS: readonly RuleField[] = [
  { field: "context", rule: "policy", read: oneOf(POLICIES, 0), want: POLICIES.join(" / ") },
  { field: "case_sensitive", rule: "caseSensitive", read: bool, want: YES_NO },
  { field: "whole_words", rule: "wholeWords", read: bool, want: YES_NO },
  { field: "regex", rule: "regex", read: bool, want: YES_NO },
  { field: "scan_messages", rule: "scanMessages", read: count, want: COUNT },
  { field: "order", rule: "order", read: whole, want: "a whole number" },
  {
    field: "group",
    rule: "groups",
    read: (_v, written, warn) => readList("group", written, MAX_TERM_CHARS, warn),
    want: "a name or a list of names",
  },
  { field: "group_override", rule: "groupOverride", read: bool, want: YES_NO },
  { field: "group_weight", rule: "groupWeight", read: positive, want: "a number above 0" },
  { field: "group_scoring", rule: "groupScoring", read: bool, want: YES_NO },
  { field: "probability", rule: "probability", read: between(0, 100), want: "a number from 0 to 100" },
  { field: "exclude_recursion", rule: "excludeRecursion", read: bool, want: YES_NO },
  { field: "prevent_recursion", rule: "preventRecursion", read: bool, want: YES_NO },
  { field: "delay_until_recursion", rule: "delayUntilRecursion", read: bool, want: YES_NO },
  { field: "sticky", rule: "sticky", read: count, want: COUNT },
  { field: "cooldown", rule: "cooldown", read: count, want: COUNT },
  { field: "delay", rule: "delay", read: count, want: COUNT },
  { field: "ignore_budget", rule: "ignoreBudget", read: bool, want: YES_NO },
  { field: "tier", rule: "tierHint", read: oneOf(TIER_HINTS, 0), want: TIER_HINTS.join(" / ") },
  {
    field: "position",
    rule: "placement.position",
    read: oneOf(POSITIONS, 8),
    want: "a place such as before_char, at_depth or an_top (README)",
  },
  { field: "depth", rule: "placement.depth", read: count, want: COUNT },
  { field: "role", rule: "placement.role", read: oneOf(ROLES, ROLES.length), want: ROLES.join(" / ") },
];

/** The lorebook frontmatter keys, in the order a new card writes them (decorators last). */
export const LOREBOOK_FIELDS: string[] = [...RULE_FIELDS.map((f) => f.field), "decorators"];

/**
 * What is wrong with a lorebook field's value as a writer was given it, as `check` would warn ("order
 * \"soon\" is not a whole number"), or null when it is usable (or `field` is no lorebook field).
 */
export function ruleFieldProblem(field: string, value: unknown): string | null {
  const f = RULE_FIELDS.find((r) => r.field === field);
  if (f === undefined || value === null || value === undefined) return null;
  let warned = false;
  const got = f.read(value, value as Value, () => {
    warned = true;
  });
  return got === undefined || warned ? `${field} ${JSON.stringify(value)} is not ${f.want}` : null;
}

function setRule(changes: RuleChanges, rule: RuleKey, value: unknown): void {
  if (rule.startsWith("placement.")) {
    const part = rule.slice("placement.".length) as keyof CardPlacement;
    changes.placement = { ...changes.placement, [part]: value };
  } else {
    (changes as Record<string, unknown>)[rule] = value;
  }
}

/** The rules the frontmatter states explicitly (a malformed value is left out, with a warning). */
function explicitRules(data: Record<string, unknown>, root: Value, warn: Warn): RuleChanges {
  const changes: RuleChanges = {};
  for (const f of RULE_FIELDS) {
    const value = data[f.field];
    if (value === undefined || value === null) continue;
    const got = f.read(value, valueAt(root, f.field), warn);
    if (got === undefined) warn(`${f.field} ${JSON.stringify(value)} is not ${f.want}; ignored`);
    else setRule(changes, f.rule, got);
  }
  // `depth: N` alone means N messages back: the at-depth place.
  if (changes.placement?.depth !== undefined && changes.placement.position === undefined) {
    changes.placement.position = "at_depth";
  }
  return changes;
}

/** The decorator lines of a `decorators:` value: a list of lines, or one (multi-line) string. */
function decoratorRules(value: unknown, warn: Warn): RuleChanges {
  if (value === undefined || value === null) return {};
  const lines = typeof value === "string" ? [value] : value;
  if (!Array.isArray(lines) || lines.some((l) => typeof l !== "string")) {
    warn(`decorators ${JSON.stringify(value)} is not a list of @@ lines; ignored`);
    return {};
  }
  const read = readDecorators(lines);
  for (const w of read.warnings) warn(w);
  return read.changes;
}

/**
 * The card's rules from its frontmatter: decorators first, explicit fields over them, `inject: false`
 * as manual when no `context:` is given. Undefined when every rule is the default.
 */
export function readRules(
  data: Record<string, unknown>,
  root: Value,
  inject: boolean,
  warn: Warn,
): CardRules | undefined {
  const decorated = decoratorRules(data.decorators, warn);
  const explicit = explicitRules(data, root, warn);
  if (!inject && explicit.policy === undefined) explicit.policy = "manual";
  // Most cards set no rule: skip building a whole CardRules only to find it is the defaults.
  if (Object.keys(decorated).length === 0 && Object.keys(explicit).length === 0) return undefined;
  const rules = rulesWith(decorated, explicit);
  return isDefaultRules(rules) ? undefined : rules;
}
