/**
 * A hit log entry: one line per surfacing (which cards, on which words, from which message). Where the
 * entries are kept is the store's business (the sqlite backend appends them to `hits.jsonl` beside
 * state.db); every backend stores them in the shape `normalizeHit` gives.
 */

import { sanitize } from "../sanitize.ts";

export type HitSource = "gateway" | "hook" | "try" | "ui";

export interface HitEntry {
  /** ISO 8601. */
  time: string;
  source: HitSource;
  keys: string[];
  words: string[];
  /**
   * The start of the triggering message, scrubbed (src/sanitize.ts: anything that looks like a
   * secret, an address or a number to reach someone dropped) and cut to 60 characters, the most of
   * a person's text the vault keeps anywhere.
   */
  message: string;
}

/** A copy in the stored shape: the message scrubbed and cut (never inside a character). */
export function normalizeHit(e: HitEntry): HitEntry {
  return {
    time: e.time,
    source: e.source,
    keys: [...e.keys],
    words: Array.isArray(e.words) ? [...e.words] : [],
    message: sanitize(typeof e.message === "string" ? e.message : "") ?? "",
  };
}
