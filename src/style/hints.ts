/**
 * What an agent's hint may name: a phrase of the person's the dictionary does not know (or does: it
 * then takes the dictionary's kind and gloss), at most 40 characters, not holding anything that looks
 * like a secret or a contact detail, of a kind a hint may give (never `voice`, which is measured, nor
 * `preference`, which profile.ts checks). Pure; the book records what passes.
 */

import { textProblem } from "../card/index.ts";
import { holdsSecret } from "../sanitize.ts";
import { guessLocale, KIND_AVOID, TERM_MAX } from "./dictionary.ts";
import type { Signal } from "./sightings.ts";
import { type HabitKind, HINT_KINDS } from "./types.ts";

/** What one distill call may carry (types.ts `distill`): a few candidates, a reviewed handful. */
export const DISTILL_EXPRESSIONS = 3;
export const DISTILL_PREFERENCES = 8;

/** Why a distill call is refused whole, or undefined when its counts are within the bounds. */
export function distillProblem(input: {
  expressions?: readonly unknown[];
  preferences?: readonly unknown[];
}) {
  const expressions = input.expressions?.length ?? 0;
  const preferences = input.preferences?.length ?? 0;
  if (expressions > DISTILL_EXPRESSIONS)
    return `at most ${DISTILL_EXPRESSIONS} expression candidates per call`;
  if (preferences > DISTILL_PREFERENCES) return `at most ${DISTILL_PREFERENCES} preferences per call`;
  if (expressions + preferences === 0) return "nothing to distill: give expressions, preferences or both";
  return undefined;
}

export interface Hint {
  signal: string;
  kind?: HabitKind;
  example?: string;
}

/** The hint's signal, or why it is refused. `known` is the dictionary's signal for a phrase, if any. */
export function hintSignal(hint: Hint, known: (signal: string) => Signal | undefined): Signal | string {
  const raw = typeof hint?.signal === "string" ? hint.signal : "";
  // Bounded before anything reads it, and no control, bidi control or half surrogate pair in it.
  if (raw.length > TERM_MAX * 4)
    return `a signal is a phrase of at most ${TERM_MAX} characters, not a sentence`;
  const odd =
    textProblem("the signal", raw) ??
    (typeof hint.example === "string" ? textProblem("the example", hint.example, true) : null);
  if (odd !== null) return odd;
  const signal = raw.normalize("NFKC").replace(/\s+/g, " ").trim();
  if (signal === "") return "a hint needs the signal: what the person says";
  if ([...signal].length > TERM_MAX)
    return `a signal is a phrase of at most ${TERM_MAX} characters, not a sentence`;
  if (holdsSecret(signal)) return "the signal looks like a credential, link, e-mail or phone number";
  if (hint.kind !== undefined && !(HINT_KINDS as readonly string[]).includes(hint.kind))
    return `kind must be one of ${HINT_KINDS.join(", ")}`;
  const kind = hint.kind ?? "idiolect";
  return (
    known(signal) ?? {
      kind,
      signal,
      locale: guessLocale(signal),
      useWhen: [],
      avoidWhen: KIND_AVOID[kind],
      source: "hint",
    }
  );
}
