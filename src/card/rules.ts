/**
 * A card's lorebook semantics (CardRules, README "Lorebook fields"): the defaults, and `rulesOf`, the
 * one way every stage reads them, so a plain card (no `rules` in its metadata) behaves as the defaults
 * say. Pure data; the frontmatter reading lives in _fields.ts, the decorators in decorators.ts.
 */
import type { CardMeta, CardPlacement, CardRules } from "./types.ts";

/**
 * Placement names a card may carry in `position:`. The first are SillyTavern's World Info positions
 * (numbered 0–7 there), the last four the card spec's `@@position` values; null is the surface's
 * default place.
 */
export const POSITIONS = [
  "before_char",
  "after_char",
  "an_top",
  "an_bottom",
  "at_depth",
  "em_top",
  "em_bottom",
  "outlet",
  "before_desc",
  "after_desc",
  "personality",
  "scenario",
] as const;

export const DEFAULT_RULES: Readonly<CardRules> = Object.freeze({
  policy: "automatic",
  caseSensitive: false,
  wholeWords: null,
  regex: false,
  scanMessages: null,
  order: null,
  groups: [],
  groupOverride: false,
  groupWeight: 100,
  groupScoring: null,
  probability: 100,
  excludeRecursion: false,
  preventRecursion: false,
  delayUntilRecursion: false,
  sticky: 0,
  cooldown: 0,
  delay: 0,
  ignoreBudget: false,
  tierHint: null,
  placement: Object.freeze({ position: null, depth: null, role: null }),
  additionalKeys: [],
  excludeKeys: [],
  activateOnlyAfter: null,
  activateOnlyEvery: null,
  keepAfterMatch: false,
  dontAfterMatch: false,
}) as CardRules;

/** The card's rules, the defaults filling in when it has none of its own. */
export function rulesOf(card: Pick<CardMeta, "rules">): CardRules {
  return card.rules ?? DEFAULT_RULES;
}

/** Some of a card's rules: what one source (frontmatter fields, decorators, an index row) sets. */
export type RuleChanges = Partial<Omit<CardRules, "placement">> & { placement?: Partial<CardPlacement> };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The defaults with each source's changes applied in turn, a later source winning field by field. */
export function rulesWith(...sources: RuleChanges[]): CardRules {
  const rules: CardRules = { ...DEFAULT_RULES, placement: { ...DEFAULT_RULES.placement } };
  for (const { placement, ...rest } of sources) {
    Object.assign(rules, rest);
    if (placement) Object.assign(rules.placement, placement);
  }
  return rules;
}

/** What differs from the defaults: rulesWith(rulesChanges(r)) equals r. */
export function rulesChanges(rules: CardRules): RuleChanges {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rules)) {
    if (!same(v, DEFAULT_RULES[k as keyof CardRules])) out[k] = v;
  }
  return out as RuleChanges;
}

/** True when every rule is the default (such a card keeps no `rules` in its metadata). */
export function isDefaultRules(rules: CardRules): boolean {
  return Object.keys(rulesChanges(rules)).length === 0;
}
