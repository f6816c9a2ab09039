/**
 * The reproducible draws of recall: a card's `probability` and the weighted draw of an inclusion group
 * (groups.ts). SillyTavern rolls `Math.random()`, so the same chat can surface different lore twice;
 * here every draw is a hash of a seed and what is drawn for, so the same seed gives the same answer on
 * every run and platform (`try` twice, a test, a replayed turn). The seed is the caller's (gateway:
 * conversation and turn; hook: session and turn; `try --seed`), else a hash of the turns.
 *
 * The hash is 32-bit FNV-1a over the UTF-8 bytes, finished with MurmurHash3's 32-bit mixer so that
 * inputs differing only in their last bytes (card ids sharing a prefix) still spread over the whole
 * range. Both are short, published and fixed. `Bun.hash` is not used: its algorithm is Bun's choice
 * and its output is not promised to stay the same across Bun versions, and a stored seed must keep
 * giving the same draws after an upgrade.
 */
import { rulesOf } from "../../card/rules.ts";
import { type Selected, type Selection, vetoed } from "../selection.ts";
import type { Turn } from "../types.ts";

const encoder = new TextEncoder();

/** FNV-1a (32 bit) of the UTF-8 bytes of `text`. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of encoder.encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** FNV-1a, then the MurmurHash3 fmix32 finaliser. */
export function hash32(text: string): number {
  let h = fnv1a(text);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A draw in [0, 1) for `what` under `seed`: the same pair always gives the same number. */
export function draw(seed: string, what: string): number {
  return hash32(`${seed}\u0000${what}`) / 2 ** 32;
}

/** The seed when the caller gives none: the turns themselves, roles included. */
export function seedOf(turns: readonly Turn[], given?: string): string {
  if (given !== undefined) return given;
  return hash32(turns.map((t) => `${t.role}\u0001${t.text}`).join("\u0002")).toString(16);
}

/** The card's draw in [0, 100): it fires when the draw is below its probability. */
export function chanceDraw(seed: string, id: string): number {
  return draw(seed, `probability\u0000${id}`) * 100;
}

/**
 * Stage: probability. Every fired card of the batch whose `probability` is below 100 fires only when
 * its draw is below that number (0 never fires); the others are vetoed `probability`. Cards in `keep`
 * are not drawn: still-sticky cards (SillyTavern does not re-roll them) and cards asked for by id.
 * A card of probability 0 is not drawn either (its draw is reported as null).
 */
export function chance(
  selection: Selection,
  options: { seed: string; keep: ReadonlySet<string>; batch?: ReadonlySet<string> },
): Selected[] {
  return selection.map((entry) => {
    if (entry.verdict !== "fired" || options.keep.has(entry.id)) return entry;
    if (options.batch && !options.batch.has(entry.id)) return entry;
    const probability = rulesOf(entry.card).probability;
    if (probability >= 100) return entry;
    // The draw is kept on the entry, fired or not, so the context door can say how it went.
    const roll = { draw: probability > 0 ? chanceDraw(options.seed, entry.id) : null, chance: probability };
    if (roll.draw !== null && roll.draw < probability) return { ...entry, roll };
    return vetoed(entry, { reason: "probability", roll });
  });
}
