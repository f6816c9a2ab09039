// A selection entry as the render stage leaves it (fired, named in the current message, with its text),
// for the tests that drive one stage of recall by hand.
import { DEFAULT_RULES } from "../../src/card/rules.ts";
import type { CardMeta, CardRules } from "../../src/card/types.ts";
import type { Selected } from "../../src/recall/index.ts";

export function entry(
  key: string,
  text = "x",
  extra: Partial<Selected> = {},
  rules: Partial<CardRules> = {},
): Selected {
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
    ...extra,
  };
}
