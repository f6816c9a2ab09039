/**
 * The World Info mapping table: one row per entry field SillyTavern acts on (docs/INTEROP.md lists
 * them). The numbers are SillyTavern's own (public/scripts/world-info.js): selectiveLogic 0 AND ANY,
 * 1 NOT ALL, 2 NOT ANY, 3 AND ALL; position 0–7 = card/rules.ts POSITIONS; role 0 system, 1 user,
 * 2 assistant. A `null` setting (caseSensitive, matchWholeWords, useGroupScoring, scanDepth) means
 * "the global setting": the card leaves it unstated, and an export writes null again.
 */

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
  SILLYTAVERN_WHOLE_WORDS,
  secondaryOf,
  timedRule,
  weightRule,
} from "./_shared-rules.ts";
import {
  AT_DEPTH,
  flag,
  groupNames,
  positionName,
  positionNumber,
  roleName,
  roleNumber,
  whole,
} from "./_values.ts";

const WRITTEN_PATTERN = /^\/([\s\S]+)\/([a-z]*)$/;

/** A key as SillyTavern runs it as a pattern: `/key/i` (case-blind unless case_sensitive); a `/…/` key stays. */
export function wrapPattern(key: string, caseSensitive: boolean): string {
  if (WRITTEN_PATTERN.test(key)) return key;
  return `/${key.replace(/\//g, "\\/")}/${caseSensitive ? "" : "i"}`;
}

/** The key `wrapPattern` made it from; any other key as it is. */
export function unwrapPattern(key: string, caseSensitive: boolean): string {
  const m = WRITTEN_PATTERN.exec(key);
  if (m === null || m[2] !== (caseSensitive ? "" : "i")) return key;
  return m[1]!.replace(/\\\//g, "/");
}

/** The old `scan_depth` counted turns (two messages); SillyTavern counts messages. */
export function doubleDepth(turns: number): number {
  return turns * 2;
}

const atDepth = (e: Raw) => positionName(e.position) === AT_DEPTH;

export const ST_RULES: FieldRule[] = [
  {
    // SillyTavern has no per-entry regex switch; it runs keys written /pattern/flags as patterns. A
    // card with `regex: true` goes out with each key so written (and `useRegex`, RisuAI's name for
    // the switch, so it comes back as it was).
    fields: ["key"],
    read: (e) => {
      const keys = stringList(e.key);
      if (e.useRegex !== true) return { keywords: keys };
      return { keywords: keys.map((k) => unwrapPattern(k, e.caseSensitive === true)) };
    },
    write: (m) => {
      if (m.rules.regex !== true) return { key: [...m.keywords] };
      return { key: m.keywords.map((k) => wrapPattern(k, m.rules.case_sensitive === true)) };
    },
  },
  {
    fields: ["useRegex"],
    read: (e) => ({ rules: { regex: flag(e.useRegex) } }),
    write: (m): Raw => (m.rules.regex === true ? { useRegex: true } : {}),
  },
  {
    // SillyTavern looks at the secondary keys only when `selective` is true.
    fields: ["keysecondary", "selectiveLogic", "selective"],
    read: (e) => ({
      secondary:
        e.selective === false
          ? secondaryOf([], LOGIC.AND_ANY)
          : secondaryOf(e.keysecondary, numberOr(e.selectiveLogic, LOGIC.AND_ANY)),
    }),
    write: (m) => {
      const { words, logic } = logicOf(m.secondary);
      return { keysecondary: words, selectiveLogic: logic, selective: true };
    },
  },
  {
    fields: ["comment"],
    read: (e) => ({ title: stTitle(e) }),
    write: (m) => ({ comment: m.title }),
  },
  contentRule(true),
  orderRule("order"),
  PRIORITY_RULE,
  {
    fields: ["scanDepth"],
    read: (e) => ({ rules: { scan_messages: whole(e.scanDepth) } }),
    write: (m) => ({
      scanDepth: m.rules.scan_messages ?? (m.scanDepth === null ? null : doubleDepth(m.scanDepth)),
    }),
  },
  {
    fields: ["disable"],
    read: (e) => ({ enabled: e.disable !== true }),
    write: (m) => ({ disable: !m.enabled }),
  },
  constantRule(),
  {
    fields: ["position"],
    read: (e) => ({ rules: { position: positionName(e.position) } }),
    write: (m) => ({ position: positionNumber(m.rules.position) ?? 0 }),
  },
  {
    // Insertion depth and role only mean something at a depth (position 4).
    fields: ["depth"],
    read: (e) => ({ rules: { depth: atDepth(e) ? whole(e.depth) : undefined } }),
    write: (m) => ({ depth: m.rules.depth ?? 4 }),
  },
  {
    fields: ["role"],
    read: (e) => ({ rules: { role: atDepth(e) ? roleName(e.role) : undefined } }),
    write: (m) => ({ role: roleNumber(m.rules.role) }),
  },
  nullableRule("caseSensitive", "case_sensitive"),
  nullableRule("matchWholeWords", "whole_words", SILLYTAVERN_WHOLE_WORDS),
  nullableRule("useGroupScoring", "group_scoring"),
  {
    fields: ["probability", "useProbability"],
    read: (e) => ({ rules: { probability: chanceOf(e.probability, e.useProbability) } }),
    write: (m) => ({ probability: m.rules.probability ?? 100, useProbability: true }),
  },
  {
    fields: ["group"],
    read: (e) => ({ rules: { group: groupNames(e.group) } }),
    write: (m) => ({ group: (m.rules.group ?? []).join(", ") }),
  },
  flagRule("groupOverride", "group_override"),
  weightRule("groupWeight"),
  flagRule("excludeRecursion", "exclude_recursion"),
  flagRule("preventRecursion", "prevent_recursion"),
  delayRule("delayUntilRecursion"),
  timedRule("sticky", "sticky"),
  timedRule("cooldown", "cooldown"),
  timedRule("delay", "delay"),
  flagRule("ignoreBudget", "ignore_budget"),
];

/** The comment, else the first key, else the uid (as every version of this mapping has read it). */
export function stTitle(e: Raw): string {
  if (typeof e.comment === "string" && e.comment.trim() !== "") return e.comment.trim();
  const first = stringList(e.key)[0];
  if (first !== undefined) return first;
  return `entry ${typeof e.uid === "number" || typeof e.uid === "string" ? e.uid : "?"}`;
}
