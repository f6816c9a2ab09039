/**
 * A hit log entry: one line per surfacing (which cards, on which words, from which message). Where the
 * entries are kept is the store's business (the sqlite backend appends them to `hits.jsonl` beside
 * state.db); every backend stores them in the shape `normalizeHit` gives.
 */

export type HitSource = "gateway" | "hook" | "try" | "ui";

export interface HitEntry {
  /** ISO 8601. */
  time: string;
  source: HitSource;
  keys: string[];
  words: string[];
  /** The first 200 characters of the triggering message. */
  message: string;
}

const MESSAGE_CHARS = 200;

/** A copy in the stored shape: the message cut to 200 characters (never inside a character). */
export function normalizeHit(e: HitEntry): HitEntry {
  return {
    time: e.time,
    source: e.source,
    keys: [...e.keys],
    words: Array.isArray(e.words) ? [...e.words] : [],
    message: Array.from(typeof e.message === "string" ? e.message : "")
      .slice(0, MESSAGE_CHARS)
      .join(""),
  };
}
