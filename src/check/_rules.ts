/**
 * The checks of a card's lorebook rules and of what it injects: regular-expression keys that do not
 * compile (match/ `keyPattern`, the rule lookups use, so check and recall never disagree), macros
 * that stay as written because no name is configured (recall/ `expandMacros`, the rule rendering
 * uses). Pure, like the rest of check/.
 */
import { rulesOf } from "../card/index.ts";
import type { CardMeta } from "../card/types.ts";
import { cardPatterns, keyPattern } from "../match/index.ts";
import { expandMacros, type Names } from "../recall/macros.ts";

/** A finding about one card, before check/ adds the card's name and path. */
export interface RuleProblem {
  severity: "error" | "warning";
  code: "bad_pattern" | "unnamed_macro";
  detail: string;
}

/** Keys meant as regular expressions that re2js cannot compile: they never match. */
export function patternProblems(card: CardMeta): RuleProblem[] {
  const out: RuleProblem[] = [];
  const rules = rulesOf(card);
  for (const key of cardPatterns(card)) {
    const got = keyPattern(key, rules);
    if (got !== null && "error" in got) {
      const detail = `key "${key}" is not a regular expression lorecards can run (${got.error}), so it never matches`;
      out.push({ severity: "warning", code: "bad_pattern", detail });
    }
  }
  return out;
}

const LEFT_AS_WRITTEN = /\{\{(char|user)\}\}|<(char|bot|user)>/i;

/**
 * A card whose injected text still holds `{{char}}`, `{{user}}` (or `<char>`, `<bot>`, `<user>`) once
 * the configured names are put in: the model would read the macro itself. Cards that are never
 * injected (disabled, or `context: never`) are not reported.
 */
export function macroProblems(card: CardMeta, text: string, names: Names = {}): RuleProblem[] {
  if (!card.enabled || rulesOf(card).policy === "never") return [];
  const left = LEFT_AS_WRITTEN.exec(expandMacros(text, names));
  if (left === null) return [];
  const which = (left[1] ?? left[2])!.toLowerCase() === "user" ? "user" : "char";
  const detail =
    `its text uses ${left[0]}, but no ${which} name is configured (settings.yaml \`${which}:\` or ` +
    `--${which}), so the model reads "${left[0]}" as written`;
  return [{ severity: "warning", code: "unnamed_macro", detail }];
}
