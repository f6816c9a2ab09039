/**
 * The character book mapping table (V2 `character_book`, V3 Lorebook, spec 6.4; `lorebook_v3`, 6.5).
 * The card spec's own fields first (keys, secondary_keys + selective, constant, case_sensitive,
 * use_regex, position, insertion_order, priority, V3 decorators in the content); SillyTavern keeps
 * every other setting under the entry's `extensions` (src/endpoints/characters.js
 * `convertWorldInfoToCharacterBook`), read here as its own import reads them (world-info.js
 * `convertCharacterBook`), its field winning where both exist. Rows name `extensions.x` fields: the
 * entry is mapped flat (_charbook.ts), so the round-trip trick covers both levels.
 */

import { splitDecorators } from "../card/decorators.ts";
import { type FieldRule, numberOr, type Raw, stringList } from "./_model.ts";
import {
  chanceOf,
  constantRule,
  contentRule,
  delayRule,
  flagRule,
  LOGIC,
  logicOf,
  nullableRule,
  orderRule,
  PRIORITY_RULE,
  secondaryOf,
  timedRule,
  weightRule,
} from "./_shared-rules.ts";
import {
  AT_DEPTH,
  bool,
  flag,
  groupNames,
  positionName,
  positionNumber,
  roleName,
  roleNumber,
  whole,
} from "./_values.ts";

/** Where SillyTavern keeps its settings in a book entry; mapped flat as `extensions.<name>`. */
export const X = "extensions";
const ext = (name: string) => `${X}.${name}`;

/**
 * The extension keys only SillyTavern writes on a card's entries (`charaFormatData`): an entry that has
 * one was written by SillyTavern, even when an editor kept only some of them (no `display_index`).
 */
export const ST_ONLY = [
  "display_index",
  "selectiveLogic",
  "useProbability",
  "exclude_recursion",
  "prevent_recursion",
  "delay_until_recursion",
  "match_whole_words",
  "use_group_scoring",
  "group_override",
  "automation_id",
];

/**
 * An entry SillyTavern wrote: it reads only its own `extensions.case_sensitive` and
 * `extensions.match_whole_words` (null there: its shipped setting, whole words). Our export writes these
 * keys too, as SillyTavern would read them, so our own cards come back the same.
 */
function madeBySillyTavern(e: Raw): boolean {
  return ST_ONLY.some((name) => ext(name) in e);
}

/**
 * SillyTavern writes `use_regex: true` on every entry it exports while its keys are plain words, and
 * ignores the flag on import; its exports are known by `extensions.display_index`, which they always
 * carry and ours never invents (ours writes `use_regex` only for a card that means it).
 */
function exportedBySillyTavern(e: Raw): boolean {
  return ext("display_index") in e;
}

/** The spec's `position` as SillyTavern reads it, unless a positioning decorator places the entry. */
function specPosition(e: Raw): string | undefined {
  if (placedByDecorator(e.content)) return undefined;
  return e.position === "before_char" ? "before_char" : "after_char";
}

/** Whether the content opens with a decorator that places the entry (card spec §9.3). */
function placedByDecorator(content: unknown): boolean {
  if (typeof content !== "string") return false;
  return splitDecorators(content).decorators.some((d) => /^@@@?(depth|position|reverse_depth)\b/.test(d));
}

function extAtDepth(e: Raw): boolean {
  return positionName(e[ext("position")]) === AT_DEPTH;
}

/**
 * The table for V2 and V3 entries. Decorators are V3's (spec §9), but SillyTavern reads the leading `@@`
 * lines of every entry's content, V2 cards' included (`parseDecorators`), and people's V2 cards use
 * `@@dont_activate`: so V2 content opens with decorators too, rather than sending them as text.
 */
function bookRules(): FieldRule[] {
  return [
    {
      fields: ["keys"],
      read: (e) => ({ keywords: stringList(e.keys) }),
      write: (m) => ({ keys: [...m.keywords] }),
    },
    {
      // Spec 8.2.2/8.2.3: secondary keys count only when `selective` is true.
      fields: ["secondary_keys", "selective", ext("selectiveLogic")],
      read: (e) => ({
        secondary:
          e.selective === true
            ? secondaryOf(e.secondary_keys, numberOr(e[ext("selectiveLogic")], LOGIC.AND_ANY))
            : secondaryOf([], LOGIC.AND_ANY),
      }),
      write: (m) => {
        const { words, logic } = logicOf(m.secondary);
        return { secondary_keys: words, selective: true, [ext("selectiveLogic")]: logic };
      },
    },
    {
      fields: ["name", "comment"],
      read: (e) => ({ title: bookTitle(e) }),
      write: (m) => ({ comment: m.title }),
    },
    contentRule(true),
    orderRule("insertion_order"),
    PRIORITY_RULE,
    {
      fields: ["enabled"],
      read: (e) => ({ enabled: e.enabled !== false }),
      write: (m) => ({ enabled: m.enabled }),
    },
    constantRule(),
    {
      fields: ["use_regex"],
      read: (e) => ({ rules: { regex: exportedBySillyTavern(e) ? undefined : flag(e.use_regex) } }),
      write: (m) => ({ use_regex: m.rules.regex === true }),
    },
    {
      // SillyTavern reads only its own extensions.case_sensitive; for an entry it did not write, the
      // spec's field is the fallback.
      fields: ["case_sensitive", ext("case_sensitive")],
      read: (e) => ({
        rules: {
          case_sensitive:
            bool(e[ext("case_sensitive")]) ?? (madeBySillyTavern(e) ? undefined : bool(e.case_sensitive)),
        },
      }),
      write: (m) => {
        const v = m.rules.case_sensitive;
        return v === undefined
          ? { [ext("case_sensitive")]: null }
          : { case_sensitive: v, [ext("case_sensitive")]: v };
      },
    },
    {
      // SillyTavern's number wins; else the spec's field, read as SillyTavern's card import reads it
      // (`convertCharacterBook`): `before_char` is before the character, anything else (or nothing) after.
      // A V3 positioning decorator in the content (`@@depth`, `@@position`) says where the entry goes
      // instead: the spec's field is then only the default a writer filled in.
      fields: ["position", ext("position")],
      read: (e) => ({ rules: { position: positionName(e[ext("position")]) ?? specPosition(e) } }),
      write: (m) => {
        const n = positionNumber(m.rules.position);
        const top = n === undefined || n === 0 ? "before_char" : "after_char";
        return n === undefined ? { position: top } : { position: top, [ext("position")]: n };
      },
    },
    {
      fields: [ext("depth")],
      read: (e) => ({ rules: { depth: extAtDepth(e) ? whole(e[ext("depth")]) : undefined } }),
      write: (m) => ({ [ext("depth")]: m.rules.depth ?? (m.rules.position === AT_DEPTH ? null : 4) }),
    },
    {
      fields: [ext("role")],
      read: (e) => ({ rules: { role: extAtDepth(e) ? roleName(e[ext("role")]) : undefined } }),
      write: (m) => ({ [ext("role")]: roleNumber(m.rules.role) }),
    },
    {
      fields: [ext("scan_depth")],
      read: (e) => ({ rules: { scan_messages: whole(e[ext("scan_depth")]) } }),
      write: (m) => ({
        [ext("scan_depth")]: m.rules.scan_messages ?? (m.scanDepth === null ? null : m.scanDepth * 2),
      }),
    },
    nullableRule(ext("match_whole_words"), "whole_words", (e) => madeBySillyTavern(e)),
    nullableRule(ext("use_group_scoring"), "group_scoring"),
    {
      fields: [ext("probability"), ext("useProbability")],
      read: (e) => ({ rules: { probability: chanceOf(e[ext("probability")], e[ext("useProbability")]) } }),
      write: (m) => ({ [ext("probability")]: m.rules.probability ?? 100, [ext("useProbability")]: true }),
    },
    {
      fields: [ext("group")],
      read: (e) => ({ rules: { group: groupNames(e[ext("group")]) } }),
      write: (m) => ({ [ext("group")]: (m.rules.group ?? []).join(", ") }),
    },
    flagRule(ext("group_override"), "group_override"),
    weightRule(ext("group_weight")),
    flagRule(ext("exclude_recursion"), "exclude_recursion"),
    flagRule(ext("prevent_recursion"), "prevent_recursion"),
    delayRule(ext("delay_until_recursion")),
    timedRule(ext("sticky"), "sticky"),
    timedRule(ext("cooldown"), "cooldown"),
    timedRule(ext("delay"), "delay"),
    flagRule(ext("ignore_budget"), "ignore_budget", true),
  ];
}

export const BOOK_RULES = bookRules();

/** The name, else the comment, else the first key, else the id. */
export function bookTitle(e: Raw): string {
  for (const v of [e.name, e.comment]) if (typeof v === "string" && v.trim() !== "") return v.trim();
  const first = stringList(e.keys)[0];
  if (first !== undefined) return first;
  return `entry ${typeof e.id === "number" || typeof e.id === "string" ? e.id : "?"}`;
}
