/**
 * The hit log's entry for one surfacing, built one way for every surface (the gateway, the hook, `try`,
 * `/api/try`): the chosen cards' keys in order, the words they fired on (each once, first seen first),
 * the start of the triggering message (scrubbed, at most 60 characters: state/hits.ts), and the time. Where entries are kept is state/'s
 * business; this only says what one holds.
 */
import { type HitEntry, type HitSource, normalizeHit } from "../state/index.ts";
import type { FiredCard } from "./types.ts";

/**
 * `result.chosen` are the cards that went in front of the model; `message` is the one the surface
 * counts as the trigger (the gateway: the top card's; the others: the person's current message).
 */
export function hitEntry(
  source: HitSource,
  result: { chosen: readonly Pick<FiredCard, "key" | "hits">[] },
  message: string,
  now: Date,
): HitEntry {
  return normalizeHit({
    time: now.toISOString(),
    source,
    keys: result.chosen.map((c) => c.key),
    words: [...new Set(result.chosen.flatMap((c) => c.hits))],
    message,
  });
}
