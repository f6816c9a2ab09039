/**
 * The hit log's entry for one surfacing, built one way for every surface (the gateway, the hook, `try`,
 * `/api/try`): the chosen cards' keys in order, the words they fired on (each once, first seen first),
 * the start of the triggering message (scrubbed, at most 60 characters: state/hits.ts), and the time. Where entries are kept is state/'s
 * business; this only says what one holds.
 */
import { type HitEntry, type HitSource, normalizeHit } from "../state/index.ts";
import type { RecallResult } from "./types.ts";
import { chosenCards } from "./views.ts";

/**
 * The chosen cards of `result` are the cards that went in front of the model; `message` is the one the
 * surface counts as the trigger (the gateway: the top card's; the others: the person's current message).
 */
export function hitEntry(
  source: HitSource,
  result: Pick<RecallResult, "selection">,
  message: string,
  now: Date,
): HitEntry {
  const chosen = chosenCards(result);
  return normalizeHit({
    time: now.toISOString(),
    source,
    keys: chosen.map((c) => c.card.key),
    words: [...new Set(chosen.flatMap((c) => c.hits))],
    message,
  });
}
