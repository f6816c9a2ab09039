/**
 * The scan window and the token rule shared by term hits and secondary words: messages folded once,
 * newest first, and the test that a one-character term stands as a whole token (jieba segmentation
 * inside Han or kana text, loaded only when such a term sits there).
 */
import type { AutomatonHit } from "./automaton.ts";
import { fold, isWordCharAt, UNSPACED } from "./fold.ts";
import type { Segmenter } from "./segment.ts";

export interface MatchOptions {
  /** Turns of history in the window when a card has no `scan_depth` of its own. */
  scanDepth: number;
  /** Loads a segmenter when a one-character term sits inside Han or kana text; absent = no segmentation. */
  segmenter?: () => Promise<Segmenter>;
}

/** A message of the window, folded once. Index 0 of a window is the current message. */
export interface WindowMessage {
  folded: string;
  boundaries?: Set<number>;
}

/** The last `count` messages, newest first, folded. */
export function newestFirst(messages: readonly string[], count: number): WindowMessage[] {
  const out: WindowMessage[] = [];
  for (let i = messages.length - 1; i >= 0 && out.length < count; i--) {
    out.push({ folded: fold(messages[i]!) });
  }
  return out;
}

/**
 * A one-character term counts only as a whole token. Between spaces or punctuation that is plain;
 * inside Han or kana text it takes a segmenter, and without one the term does not match there.
 */
export async function isWholeToken(
  msg: WindowMessage,
  hit: AutomatonHit,
  segmenter: (() => Promise<Segmenter>) | undefined,
): Promise<boolean> {
  const text = msg.folded;
  const before = isWordCharAt(text, hit.start - 1);
  const after = isWordCharAt(text, hit.end);
  if (!before && !after) return true;
  const neighbours = text.slice(Math.max(0, hit.start - 1), hit.end + 1);
  if (!segmenter || !UNSPACED.test(neighbours)) return false;
  msg.boundaries ??= await boundaries(text, segmenter);
  return msg.boundaries.has(hit.start) && msg.boundaries.has(hit.end);
}

async function boundaries(text: string, segmenter: () => Promise<Segmenter>): Promise<Set<number>> {
  const seg = await segmenter();
  const out = new Set<number>([0]);
  let at = 0;
  for (const word of seg.cut(text)) {
    at += word.length;
    out.add(at);
  }
  return out;
}
