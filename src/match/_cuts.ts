/**
 * Word boundaries of Han or kana text, remembered. Segmenting is the dearest step of a lookup that
 * meets such text (a jieba cut of the whole message), and the same texts come back: a message stays
 * in the window for several turns, and a card's prose is read (reach) on every turn it fires. The
 * texts segmented lately are kept, the least recently used let go first, within a budget of
 * characters, so what is kept is bounded whatever the messages: a cut costs 4 bytes a word.
 */
import { TextMemo } from "../text-memo.ts";
import type { Segmenter } from "./segment.ts";

/** Where words of a text end (and 0): `has(i)` says whether a word starts or ends at i. */
export interface Cuts {
  has(at: number): boolean;
}

/** Characters of text whose cuts are kept, over all texts (about 4 MB of cuts at most). */
const BUDGET = 1_000_000;
/** A text longer than this is cut each time (one such message would push out everything else). */
const LONGEST = 64_000;

class SortedCuts implements Cuts {
  constructor(private readonly at: Uint32Array) {}
  has(i: number): boolean {
    let lo = 0;
    let hi = this.at.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.at[mid]!;
      if (v === i) return true;
      if (v < i) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
}

/** One memory per segmenter loader (a test may bring its own segmenter). */
const memories = new WeakMap<() => Promise<Segmenter>, TextMemo<Cuts>>();

/** The cuts of `text` by the segmenter `load` gives: remembered, or cut now. */
export async function cutsOf(text: string, load: () => Promise<Segmenter>): Promise<Cuts> {
  let memory = memories.get(load);
  if (memory === undefined) {
    memory = new TextMemo(BUDGET, LONGEST);
    memories.set(load, memory);
  }
  const known = memory.peek(text);
  if (known !== undefined) return known;
  const words = await (await load()).cut(text);
  const at = new Uint32Array(words.length + 1);
  let end = 0;
  for (let i = 0; i < words.length; i++) {
    end += words[i]!.length;
    at[i + 1] = end;
  }
  const cuts = new SortedCuts(at);
  memory.remember(text, cuts);
  return cuts;
}
