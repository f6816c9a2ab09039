/**
 * Mapping rows the World Info and the character book tables share: the secondary-key logic (one list
 * and a number in SillyTavern, four lists on a card), the content (decorator lines, then the body),
 * and the one-field settings both spell alike but for the field name.
 */

import { splitDecorators } from "../card/decorators.ts";
import { normalizeText } from "../card/index.ts";
import type { Secondary } from "../card/types.ts";
import {
  emptySecondary,
  type FieldRule,
  type Mapped,
  type MappedPart,
  type Raw,
  stringList,
} from "./_model.ts";
import { bool, flag, num, timed } from "./_values.ts";

/** selectiveLogic as SillyTavern numbers it (world-info.js `world_info_logic`). */
export const LOGIC = { AND_ANY: 0, NOT_ALL: 1, NOT_ANY: 2, AND_ALL: 3 } as const;

const BUCKET: Record<number, keyof Secondary> = {
  [LOGIC.AND_ANY]: "any",
  [LOGIC.NOT_ALL]: "notAll",
  [LOGIC.NOT_ANY]: "not",
  [LOGIC.AND_ALL]: "all",
};

/** The card's secondary words for one list under one logic number (an unknown number reads as AND ANY). */
export function secondaryOf(words: unknown, logic: number): Secondary {
  const secondary = emptySecondary();
  secondary[BUCKET[logic] ?? "any"] = stringList(words);
  return secondary;
}

/**
 * One list and its number for the card's secondary words. A source holds one list, so a card with
 * several non-empty lists exports the first of any, all, not, not_all (README says so).
 */
export function logicOf(secondary: Secondary): { words: string[]; logic: number } {
  const order: [keyof Secondary, number][] = [
    ["any", LOGIC.AND_ANY],
    ["all", LOGIC.AND_ALL],
    ["not", LOGIC.NOT_ANY],
    ["notAll", LOGIC.NOT_ALL],
  ];
  for (const [name, logic] of order) {
    if (secondary[name].length > 0) return { words: [...secondary[name]], logic };
  }
  return { words: [], logic: LOGIC.AND_ANY };
}

/** A card file has \n line endings; the original CRLF content is kept aside when it differs. */
export function bodyOf(content: unknown): string {
  return typeof content === "string" ? normalizeText(content) : "";
}

/**
 * The content field as body and decorators (or, when `decorators` is false, all body). Decorators
 * (card spec 9.1) are the `@@` lines that open the content; SillyTavern strips them from World Info
 * content too. They are kept beside the body, which never carries them into a prompt.
 */
export function readContent(content: unknown, decorators: boolean): MappedPart {
  const text = bodyOf(content);
  if (!decorators) return { body: text, decorators: [] };
  const { decorators: lines, rest } = splitDecorators(text);
  return { body: rest, decorators: lines };
}

export function writeContent(m: Mapped): string {
  if (m.decorators.length === 0) return m.body;
  const head = m.decorators.join("\n");
  return m.body === "" ? head : `${head}\n${m.body}`;
}

/** The content field: its leading `@@` lines as decorators (when the format has them), the rest as body. */
export function contentRule(decorators: boolean): FieldRule {
  return {
    fields: ["content"],
    read: (e) => readContent(e.content, decorators),
    write: (m) => ({ content: writeContent(m) }),
  };
}

/** The insertion order (SillyTavern `order`, the spec's `insertion_order`); a card without one writes its priority, else 100. */
export function orderRule(field: string): FieldRule {
  return {
    fields: [field],
    read: (e) => ({ rules: { order: num(e[field]) } }),
    write: (m) => ({ [field]: m.rules.order ?? m.priority ?? 100 }),
  };
}

/**
 * `priority`: the spec's budget rank (8.2.13: lower is dropped first), and in World Info an extra field
 * that carries the card's tie-breaker through SillyTavern (which keeps fields it does not know).
 * Written only when the card states one.
 */
export const PRIORITY_RULE: FieldRule = {
  fields: ["priority"],
  read: (e) => ({ priority: num(e.priority) ?? null }),
  write: (m): Raw => (m.priority === null ? {} : { priority: m.priority }),
};

/**
 * `constant` as SillyTavern reads it: `@@dont_activate` opening the content silences even a constant
 * entry (unless `@@activate` is there too), so such an entry is not made an always card; its
 * decorators then say `never`, and the kept `constant: true` goes back out on export.
 */
export function constantRule(): FieldRule {
  return {
    fields: ["constant"],
    read: (e) => ({ rules: { context: e.constant === true && !silenced(e.content) ? "always" : undefined } }),
    write: (m) => ({ constant: m.rules.context === "always" }),
  };
}

function silenced(content: unknown): boolean {
  const names = splitDecorators(bodyOf(content)).decorators.map((line) => line.trim().split(/\s/, 1)[0]);
  return names.includes("@@dont_activate") && !names.includes("@@activate");
}

type NullableSetting = "case_sensitive" | "whole_words" | "group_scoring";
type FlagSetting = "group_override" | "exclude_recursion" | "prevent_recursion" | "ignore_budget";

/**
 * One boolean field whose `null` means "the global setting" (SillyTavern's caseSensitive, …). `unset`
 * gives what the source means by null or a missing field, when that differs from our own default: the
 * card then states it, and an export writes the kept null again.
 */
export function nullableRule(
  field: string,
  setting: NullableSetting,
  unset: (e: Raw) => boolean | undefined = () => undefined,
): FieldRule {
  return {
    fields: [field],
    read: (e) => ({ rules: { [setting]: bool(e[field]) ?? unset(e) } }),
    write: (m) => ({ [field]: m.rules[setting] ?? null }),
  };
}

/**
 * Whole words where a book leaves it to the app: SillyTavern's shipped settings turn it on for every
 * entry (its rule: a key stands between characters that are not ASCII letters, digits or `_`, so a
 * Chinese key still fires inside Chinese text); the card spec matches keys as plain substrings.
 */
export const SILLYTAVERN_WHOLE_WORDS = () => true;

/**
 * One boolean field that is false unless set. `sparse`: a field the source's own writer leaves out
 * unless set (SillyTavern's book export and ignore_budget), so ours does too.
 */
export function flagRule(field: string, setting: FlagSetting, sparse = false): FieldRule {
  return {
    fields: [field],
    read: (e) => ({ rules: { [setting]: flag(e[field]) } }),
    write: (m): Raw => (sparse && !m.rules[setting] ? {} : { [field]: m.rules[setting] ?? false }),
  };
}

/** One timed effect (sticky, cooldown, delay): 0 and null are off. */
export function timedRule(field: string, setting: "sticky" | "cooldown" | "delay"): FieldRule {
  return {
    fields: [field],
    read: (e) => ({ rules: { [setting]: timed(e[field]) } }),
    write: (m) => ({ [field]: m.rules[setting] ?? 0 }),
  };
}

/** The inclusion group weight; SillyTavern's default 100 states nothing. */
export function weightRule(field: string): FieldRule {
  return {
    fields: [field],
    read: (e) => {
      const w = num(e[field]);
      return { rules: { group_weight: w === undefined || w === 100 ? undefined : w } };
    },
    write: (m) => ({ [field]: m.rules.group_weight ?? 100 }),
  };
}

/** Delay until recursion; newer SillyTavern may hold a recursion level, and any level counts. */
export function delayRule(field: string): FieldRule {
  return {
    fields: [field],
    read: (e) => {
      const v = e[field];
      return { rules: { delay_until_recursion: v === true || timed(v) !== undefined ? true : undefined } };
    },
    write: (m) => ({ [field]: m.rules.delay_until_recursion ?? false }),
  };
}

/** Chance in percent; SillyTavern ignores it when useProbability is false (then it is 100). */
export function chanceOf(probability: unknown, use: unknown): number | undefined {
  const p = num(probability);
  if (use === false || p === undefined) return undefined;
  const clamped = Math.min(100, Math.max(0, p));
  return clamped === 100 ? undefined : clamped;
}
