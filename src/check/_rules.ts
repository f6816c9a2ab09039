/**
 * The checks of a card's lorebook rules and of what it injects: regular-expression keys that do not
 * compile (match/ `keyPattern`, the rule lookups use, so check and recall never disagree), macros
 * that stay as written because no name is configured or because they are not the card spec's (card/
 * `readMacros`, the rule rendering uses). Pure, like the rest of check/.
 */
import { rulesOf } from "../card/index.ts";
import { type MacroNames as Names, readMacros } from "../card/macros.ts";
import type { CardMeta } from "../card/types.ts";
import { cardPatterns, keyPattern } from "../match/index.ts";

/** A finding about one card, before check/ adds the card's name and path. */
export interface RuleProblem {
  severity: "error" | "warning";
  code: "bad_pattern" | "unnamed_macro" | "unknown_macro" | "ignored_secondary" | "macro_in_key";
  detail: string;
}

/**
 * Keys meant as regular expressions that re2js cannot compile: they never match. And secondary words on
 * a `regex: true` card, which the card spec has ignored (§8.2.2: secondary_keys with use_regex).
 */
export function patternProblems(card: CardMeta): RuleProblem[] {
  const out: RuleProblem[] = [];
  const rules = rulesOf(card);
  const { all, any, not, notAll } = card.secondary;
  const macroKeys = [...card.keywords, ...card.aliases, ...all, ...any, ...not, ...notAll].filter((k) =>
    /\{\{|<(char|user|bot)>/i.test(k),
  );
  if (macroKeys.length > 0) {
    const detail = `its key ${JSON.stringify(macroKeys[0])} is matched as written: lorecards does not fill macros into keys (SillyTavern does); write the name itself`;
    out.push({ severity: "warning", code: "macro_in_key", detail });
  }
  if (rules.regex && all.length + any.length + not.length + notAll.length > 0) {
    const detail =
      "its secondary words are ignored, as the card spec says for a use_regex entry (regex: true); write them as @@additional_keys lines to keep them";
    out.push({ severity: "warning", code: "ignored_secondary", detail });
  }
  for (const key of cardPatterns(card)) {
    const got = keyPattern(key, rules);
    if (got !== null && "error" in got) {
      const detail = `key "${key}" is not a regular expression lorecards can run (${got.error}), so it never matches`;
      out.push({ severity: "warning", code: "bad_pattern", detail });
    }
  }
  return out;
}

/** How many unknown macros one finding names before it counts the rest. */
const SHOWN = 3;

/**
 * A card whose injected text still holds a macro once it is read: `{{char}}` / `{{user}}` (or `<char>`,
 * `<bot>`, `<user>`) with no name configured, or a macro the card spec does not define (`{{time}}`,
 * `{{getvar::x}}`, a misspelt `{{usr}}`): the model would read the macro itself. Cards that are never
 * injected (disabled, or `context: never`) are not reported.
 */
export function macroProblems(card: CardMeta, text: string, names: Names = {}): RuleProblem[] {
  if (!card.enabled || rulesOf(card).policy === "never") return [];
  const read = readMacros(text, { names });
  const out: RuleProblem[] = read.unnamed.map((which) => ({
    severity: "warning",
    code: "unnamed_macro",
    detail:
      `its text uses {{${which}}}, but no ${which} name is configured (settings.yaml \`${which}:\` or ` +
      `--${which}), so the model reads "{{${which}}}" as written`,
  }));
  const unknown = [...new Set(read.unknown)];
  if (unknown.length > 0) {
    const named = unknown
      .slice(0, SHOWN)
      .map((m) => JSON.stringify(m.length > 60 ? `${m.slice(0, 57)}...` : m));
    const rest = unknown.length > SHOWN ? ` and ${unknown.length - SHOWN} more` : "";
    out.push({
      severity: "warning",
      code: "unknown_macro",
      detail: `its text uses ${named.join(", ")}${rest}, which lorecards does not know (the card spec's macros are {{char}}, {{user}}, {{random:…}}, {{pick:…}}, {{roll:…}}, {{reverse:…}}, {{// …}}, {{comment:…}}, {{hidden_key:…}}), so the model reads it as written`,
    });
  }
  return out;
}
