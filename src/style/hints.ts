/**
 * What an agent's hint may name: a phrase of the person's the dictionary does not know (or does: it
 * then takes the dictionary's kind and gloss), at most 40 characters, not holding anything that looks
 * like a secret or a contact detail, of a kind a hint may give (never `voice`, which is measured, nor
 * `preference`, which profile.ts checks). Pure; the book records what passes.
 */

import { holdsSecret } from "../sanitize.ts";
import { guessLocale, KIND_AVOID, TERM_MAX } from "./dictionary.ts";
import type { Signal } from "./sightings.ts";
import { type HabitKind, HINT_KINDS } from "./types.ts";

export interface Hint {
  signal: string;
  kind?: HabitKind;
  example?: string;
}

/** The hint's signal, or why it is refused. `known` is the dictionary's signal for a phrase, if any. */
export function hintSignal(hint: Hint, known: (signal: string) => Signal | undefined): Signal | string {
  const raw = typeof hint?.signal === "string" ? hint.signal : "";
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
