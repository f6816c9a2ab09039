/**
 * The matcher of a vault version as the saved snapshot plus layers of the cards changed since it was
 * saved, and how one version's matcher becomes the next's. A server sees one save at a time: the next
 * version is the last one with the saved card set aside where it was and a layer of that card alone,
 * and the cards already decoded are carried over, so a save costs the cards it touched, never the
 * vault, nor every card changed since the snapshot. The changed cards' layers are merged as they pile
 * up (the newest two when the older holds no more live cards than the newer: a binary counter), so a
 * lookup scans a few small automatons, and a card is compiled again a few times at most. Private to
 * recall/ (_compiled.ts).
 */
import type { CardMeta } from "../card/types.ts";
import {
  buildLayer,
  type CardSource,
  findIn,
  type Layer,
  Matcher,
  type Snapshot,
  type Strings,
} from "../match/index.ts";
import type { VaultIndex } from "../vault/index.ts";

/** Cards kept decoded before the cache starts again (a long-running server must not keep them all). */
const MAX_CACHED = 5000;

/** Changed cards' layers beyond which all of them are compiled as one. */
const MAX_LAYERS = 12;

/** The cards of a matcher by position, as recall reads them. */
export interface Cards extends CardSource {
  at(index: number): CardMeta | undefined;
}

/** The matcher's cards by position (the snapshot's paths, then the changed cards'), decoded on use. */
export class CardList implements Cards {
  private cache = new Map<number, CardMeta | null>();
  readonly length: number;

  constructor(
    readonly parts: readonly Strings[],
    private readonly entries: VaultIndex["entries"],
  ) {
    this.length = parts.reduce((n, p) => n + p.length, 0);
  }

  private pathAt(index: number): string | undefined {
    let i = index;
    for (const part of this.parts) {
      if (i < part.length) return part.at(i);
      i -= part.length;
    }
    return undefined;
  }

  /** The card at `index`; undefined when its file is gone (or is broken) since the matcher was made. */
  at(index: number): CardMeta | undefined {
    let card = this.cache.get(index);
    if (card === undefined) {
      const path = this.pathAt(index);
      card = (path === undefined ? undefined : this.entries.meta(path)) ?? null;
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(index, card);
    }
    return card ?? undefined;
  }

  /**
   * Take over `from`'s decoded cards below position `below` but those at `changed`: the positions
   * that still name the same card in the same version. `from` is not used afterwards.
   */
  adopt(from: CardList, below: number, changed: Iterable<number>): void {
    const cache = from.cache;
    for (const at of changed) cache.delete(at);
    for (const at of cache.keys()) if (at >= below) cache.delete(at);
    this.cache = cache;
  }
}

/** What a version's layers stand on, for the next version to extend. */
export interface Overlay {
  base: Snapshot;
  /** The paths of each layer after the snapshot's, in the matcher's order. */
  parts: string[][];
}

/** A matcher and its cards, as _compiled.ts's `Loaded` holds them. */
export interface Layered {
  cards: CardList;
  matcher: Matcher;
  overlay: Overlay;
}

/** Where each path sits in a snapshot, found once (a binary search decodes a path per step). */
const positions = new WeakMap<Snapshot, Map<string, number>>();

function positionIn(saved: Snapshot, path: string): number {
  let known = positions.get(saved);
  if (!known) {
    known = new Map();
    positions.set(saved, known);
  }
  let at = known.get(path);
  if (at === undefined) {
    at = findIn(saved.paths, saved.byPath, path);
    known.set(path, at);
  }
  return at;
}

/** The enabled cards among `paths`, in code-unit order (a layer's cards, as a rebuild orders them). */
function enabledOf(index: VaultIndex, paths: Iterable<string>): string[] {
  return [...paths].filter((p) => index.entries.meta(p)?.enabled === true).sort();
}

/**
 * The snapshot plus one layer of the cards changed since it was saved, when the index can tell what
 * changed and that is at most `most` cards; else undefined.
 */
export function layered(index: VaultIndex, saved: Snapshot, most: number): Layered | undefined {
  const changes = index.changesSince(saved.stamp);
  if (changes === undefined || changes.changed.length + changes.gone.length > most) return undefined;
  const hidden = new Set<number>();
  for (const path of [...changes.changed, ...changes.gone]) {
    const at = positionIn(saved, path);
    if (at !== -1) hidden.add(at);
  }
  const added = enabledOf(index, changes.changed);
  const parts = added.length > 0 ? [added] : [];
  const cards = new CardList([saved.paths, ...parts], index.entries);
  const layers: Layer[] = [{ table: saved.table, automaton: saved.automaton, offset: 0, hidden }];
  if (added.length > 0) layers.push(buildLayer(cards, saved.paths.length, added.length));
  return { cards, matcher: new Matcher(cards, layers), overlay: { base: saved, parts } };
}

/**
 * The next version of `last` (built on the snapshot `saved`, at version `since`): the paths changed
 * after `since` are set aside where they were and compiled in a layer of their own. Undefined when
 * it cannot be done (another snapshot, an index that cannot tell what changed) or more than `most`
 * cards would then be outside the snapshot.
 */
export function extend(
  last: Layered,
  since: string,
  index: VaultIndex,
  saved: Snapshot,
  most: number,
): Layered | undefined {
  if (last.overlay.base !== saved) return undefined;
  const changes = index.changesSince(since);
  if (changes === undefined) return undefined;
  const layers = [...last.matcher.layers];
  const parts = last.overlay.parts;
  const touched = new Set([...changes.changed, ...changes.gone]);
  // Set aside, in the layer that holds it, every card whose file changed or went.
  const hide = new Map<number, Set<number>>();
  const hideAt = (layer: number, i: number) => {
    let set = hide.get(layer);
    if (!set) {
      set = new Set(layers[layer]!.hidden);
      hide.set(layer, set);
    }
    set.add(i);
  };
  const changedAt: number[] = [];
  for (const path of touched) {
    const at = positionIn(saved, path);
    if (at !== -1 && !layers[0]!.hidden?.has(at)) {
      hideAt(0, at);
      changedAt.push(at);
    }
  }
  parts.forEach((paths, p) => {
    const layer = layers[p + 1]!;
    paths.forEach((path, i) => {
      if (touched.has(path) && !layer.hidden?.has(i)) {
        hideAt(p + 1, i);
        changedAt.push(layer.offset + i);
      }
    });
  });
  for (const [l, hidden] of hide) layers[l] = { ...layers[l]!, hidden };
  const liveOf = (p: number) => parts[p]!.filter((_, i) => !layers[p + 1]!.hidden?.has(i));
  // The newest layers are merged while the older of the last two holds no more live cards than the
  // newer (a binary counter: layers stay few, each about twice the next), or while there are too many.
  let merged = enabledOf(index, changes.changed);
  let from = parts.length; // the first part compiled anew
  while (from > 0 && (liveOf(from - 1).length <= merged.length || from > MAX_LAYERS)) {
    from--;
    merged = [...liveOf(from), ...merged];
  }
  let outside = merged.length;
  for (let p = 0; p < from; p++) outside += liveOf(p).length;
  if (outside > most) return undefined;
  const kept = parts.slice(0, from);
  const next = merged.length > 0 ? [...kept, merged.sort()] : kept;
  const offset = kept.reduce((n, p) => n + p.length, saved.paths.length);
  const cards = new CardList([saved.paths, ...next], index.entries);
  const nextLayers = layers.slice(0, from + 1);
  if (merged.length > 0) nextLayers.push(buildLayer(cards, offset, merged.length));
  cards.adopt(last.cards, offset, changedAt);
  return { cards, matcher: new Matcher(cards, nextLayers), overlay: { base: saved, parts: next } };
}

/**
 * How many cards a version holds outside its snapshot (changed, added or gone since it was saved), as
 * a cold process would count them: at most what the index's list of changes since the snapshot holds.
 */
export function outsideSnapshot(loaded: { matcher: Matcher; overlay?: Overlay } | undefined): number {
  if (loaded?.overlay === undefined) return 0;
  const { base, parts } = loaded.overlay;
  const added = new Set(parts.flat().filter((path) => positionIn(base, path) === -1));
  return (loaded.matcher.layers[0]!.hidden?.size ?? 0) + added.size;
}
