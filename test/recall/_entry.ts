// A selection entry as the render stage leaves it (fired, named in the current message, with its text
// and the placement of its rules), and the same in the other outcomes, for the tests that drive one
// stage of recall by hand.
import { DEFAULT_RULES } from "../../src/card/rules.ts";
import type { CardMeta, CardRules } from "../../src/card/types.ts";
import { type Chosen, chosen, type Fired, type InContext } from "../../src/recall/index.ts";

export function entry(
  key: string,
  text = "x",
  extra: Partial<Fired> = {},
  rules: Partial<CardRules> = {},
): Fired {
  const card = {
    key,
    kind: "people",
    title: key,
    priority: 0,
    rules: { ...DEFAULT_RULES, ...rules },
  } as CardMeta;
  return {
    id: `people/${key}`,
    card,
    hits: [key.toLowerCase()],
    score: 1,
    found: new Set([0]),
    trigger: key,
    verdict: "fired",
    via: "named",
    policy: "automatic",
    text,
    chars: [...text].length,
    placement: card.rules!.placement,
    edited: false,
    ...extra,
  };
}

/** The same entry chosen by the budget (in the volatile tier). */
export function chosenEntry(key: string, text = "x", extra: Partial<Fired> = {}): Chosen {
  return chosen(entry(key, text, extra));
}

/** The same entry set aside as recorded in context. */
export function inContextEntry(key: string, text = "x"): InContext {
  const { verdict: _, reason: _r, ...seen } = entry(key, text);
  return { ...seen, verdict: "in_context", reason: "recorded" };
}
