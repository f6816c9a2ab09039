/**
 * The compiled state of one vault version: the matcher and the cards it was built from, decoded
 * lazily from the index. The matcher is the snapshot saved in matcher.bin (used from the mapped file,
 * match/snapshot.ts) plus, when cards changed since it was saved, a small layer of just those cards,
 * with the snapshot's copies of them set aside: an edit costs the cards it touched, not a rebuild of
 * the vault. Past OVERLAY_MAX changed cards the snapshot is rebuilt (and saved, when persisting).
 * Private to recall/ (its stages read `Compiled`).
 */
import { readFileSync, statSync } from "node:fs";
import type { BrokenCard, CardMeta, KindsConfig } from "../card/types.ts";
import { buildLayer, loadSnapshot, Matcher, type Snapshot, saveSnapshot } from "../match/index.ts";
import {
  atomicWrite,
  type CardLookup,
  indexLookup,
  refTarget,
  stateIn,
  type Vault,
  type VaultIndex,
} from "../vault/index.ts";
import { CardList, type Cards, extend, layered, type Overlay } from "./_layers.ts";

export type { Cards } from "./_layers.ts";
export { outsideSnapshot } from "./_layers.ts";

/** Changed cards compiled in a layer of their own before the snapshot is rebuilt instead. */
export const OVERLAY_MAX = 256;

/** A refresh rebuilds the snapshot sooner than a cold lookup would, to keep every layer small. */
export const REFRESH_OVERLAY_MAX = Math.floor(OVERLAY_MAX / 4);

/**
 * One vault version as recall reads it: the matcher and cards, and a card's public text on demand. A
 * conversation's several books are one too (_union.ts), which answers the look-ups by id and by name
 * and lists its broken cards itself (`byId`, `named`, `broken`); one vault answers them from its index.
 */
export interface Compiled {
  readonly loaded: Loaded;
  readonly kinds: KindsConfig;
  /** The card's text without its private sections (read from disk, or a cache, by the source). */
  publicText(card: CardMeta): string;
  /** The books read, when several are (their names, `main` for the vault's own cards). */
  readonly books?: readonly string[];
  byId?(id: string): CardMeta | undefined;
  named?(name: string): CardMeta | undefined;
  readonly broken?: readonly BrokenCard[];
}

export interface Loaded {
  stamp: string;
  /** The vault's index (of a set of books: the first book's, which only its own look-ups read). */
  index: VaultIndex;
  cards: Cards;
  matcher: Matcher;
  /** Cards by name (vault/ lookup), for refs; its tables are built on first use. */
  names?: CardLookup;
  /** The snapshot and the changed cards' layers this version stands on (_layers.ts), to extend. */
  overlay?: Overlay;
}

/** Where the compiled matcher of the current vault state is kept for the next cold start. */
function snapshotPath(vault: Vault): string {
  return stateIn(vault.root, "matcher.bin");
}

/**
 * The saved snapshot, mapped into memory rather than read: a cold process pays only for the pages a
 * lookup walks. Files are only ever replaced by a rename, never rewritten in place, so a mapping stays
 * valid. Where mapping is not available, the file is read.
 */
function savedSnapshot(vault: Vault): Snapshot | undefined {
  let file: string;
  try {
    file = snapshotPath(vault);
  } catch {
    return undefined; // a state folder that is a link (stateIn): no snapshot is read through it
  }
  // A server compiles on every save: the snapshot it mapped last time serves while the file is the same.
  const st = statSync(file, { throwIfNoEntry: false, bigint: true });
  const signature = st && `${st.ino}:${st.mtimeNs}:${st.size}`;
  const kept = mapped.get(file);
  if (kept && kept.signature === signature) return kept.snapshot;
  const snapshot = mapSnapshot(file);
  if (snapshot && signature) mapped.set(file, { signature, snapshot });
  return snapshot;
}

/** The snapshot last mapped per file, with the stats it was mapped at. */
const mapped = new Map<string, { signature: string; snapshot: Snapshot }>();

function mapSnapshot(file: string): Snapshot | undefined {
  let bytes: Uint8Array;
  try {
    bytes = Bun.mmap(file, { shared: false });
  } catch {
    try {
      bytes = readFileSync(file);
    } catch {
      return undefined; // none yet
    }
  }
  return loadSnapshot(bytes);
}

/** The version after `previous` by adding to its layers, when it stands on layers to add to. */
function extended(previous: Loaded | undefined, index: VaultIndex, saved: Snapshot, most: number) {
  const { cards, matcher, overlay, stamp } = previous ?? {};
  if (!overlay || !matcher || !(cards instanceof CardList)) return undefined;
  return extend({ cards, matcher, overlay }, stamp!, index, saved, most);
}

export interface CompileOptions {
  /** Save a rebuilt snapshot for the next process (default false: recall writes nothing). */
  persist?: boolean;
  /**
   * Changed cards compiled as a layer before the snapshot is rebuilt instead (default OVERLAY_MAX).
   * A server whose refresher rebuilds snapshots in another process passes Infinity: its own thread
   * then never runs a rebuild between requests.
   */
  overlayMax?: number;
  /**
   * The version this one follows (a server's last): when it stands on the same snapshot, only the
   * cards changed since it are compiled, and its decoded cards are carried over.
   */
  previous?: Loaded;
}

/**
 * The matcher of this vault state: the saved snapshot, as it is or with a layer of what changed
 * since, else built from every enabled card and saved for the next cold start only when the caller
 * says so (`persist`): recall's read path writes nothing by itself.
 */
export function compile(vault: Vault, index: VaultIndex, opts: CompileOptions = {}): Loaded {
  const saved = savedSnapshot(vault);
  const most = opts.overlayMax ?? OVERLAY_MAX;
  const next = saved && (extended(opts.previous, index, saved, most) ?? layered(index, saved, most));
  if (next) return { stamp: index.stamp, index, ...next };
  // Each enabled card is decoded once to compile it and not kept: the matcher's list fetches the few
  // cards a lookup hits.
  const { paths, rows } = index.entries.enabledRows();
  const layer = buildLayer({ length: paths.length, at: (i) => index.entries.decode(paths[i]!, rows[i]!) });
  const cards = new CardList([paths], index.entries);
  const matcher = new Matcher(cards, [layer]);
  if (opts.persist) {
    try {
      const snapshot = { table: matcher.table, automaton: matcher.automaton, paths };
      atomicWrite(snapshotPath(vault), saveSnapshot(index.stamp, snapshot));
      // No process needs removals older than the snapshot every process now starts from.
      index.forgetUpTo(index.stamp);
    } catch {
      // a read-only vault still works; it just rebuilds next time
    }
  }
  return { stamp: index.stamp, index, cards, matcher };
}

/** The card a name names (vault/ lookup, a disabled one included), or undefined. */
export function findNamed(name: string, compiled: Compiled): CardMeta | undefined {
  if (compiled.named) return compiled.named(name);
  compiled.loaded.names ??= indexLookup(compiled.kinds, compiled.loaded.index);
  return compiled.loaded.names.find(name);
}

/** A ref's card when recall shows it as a "see also" line: the one rule, vault/ `refTarget`. */
export function resolveRef(name: string, compiled: Compiled): CardMeta | undefined {
  if (compiled.named) {
    const card = compiled.named(name);
    return card?.enabled ? card : undefined;
  }
  compiled.loaded.names ??= indexLookup(compiled.kinds, compiled.loaded.index);
  const target = refTarget(compiled.loaded.names, name);
  return target.status === "ok" ? target.card : undefined;
}

/** The cards that could not be read, with their paths from the vault's root. */
export function brokenOf(compiled: Compiled): readonly BrokenCard[] {
  return compiled.broken ?? compiled.loaded.index.broken;
}
