/**
 * The compiled state of one vault version: the matcher (from the snapshot when it is current) and
 * the cards it was built from, decoded lazily from the index. Private to recall/.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CardMeta } from "../card/types.ts";
import { type CardSource, loadSnapshot, Matcher, saveSnapshot } from "../match/index.ts";
import {
  atomicWrite,
  type CardLookup,
  indexLookup,
  refTarget,
  STATE_DIR,
  type Vault,
  type VaultIndex,
} from "../vault/index.ts";

/** The matcher's cards by position, each decoded from the index only when first needed. */
export class CardList implements CardSource {
  private readonly cache: (CardMeta | undefined)[];

  constructor(
    private readonly paths: readonly string[],
    private readonly entries: VaultIndex["entries"],
  ) {
    this.cache = new Array(paths.length);
  }

  get length(): number {
    return this.paths.length;
  }

  at(index: number): CardMeta | undefined {
    let card = this.cache[index];
    if (card === undefined) {
      const path = this.paths[index];
      card = path === undefined ? undefined : this.entries.meta(path);
      this.cache[index] = card;
    }
    return card;
  }

  all(): CardMeta[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i)!);
  }
}

export interface Loaded {
  stamp: string;
  index: VaultIndex;
  cards: CardList;
  matcher: Matcher;
  /** Cards by name (vault/ lookup), for refs; its tables are built on first use. */
  names?: CardLookup;
  titles?: string[];
}

/** Where the compiled matcher of the current vault state is kept for the next cold start. */
function snapshotPath(vault: Vault): string {
  return join(vault.root, STATE_DIR, "matcher.bin");
}

/**
 * The matcher of this vault state: loaded from the snapshot when it was saved for `stamp` (then only
 * the cards that get hit are ever decoded), else built from every enabled card, and saved for the next
 * cold start only when the caller says so (`persist`): recall's read path writes nothing by itself.
 */
export function compile(vault: Vault, index: VaultIndex, opts: { persist?: boolean } = {}): Loaded {
  try {
    const saved = loadSnapshot(readFileSync(snapshotPath(vault)), index.stamp);
    if (saved) {
      const cards = new CardList(saved.paths, index.entries);
      return { stamp: index.stamp, index, cards, matcher: new Matcher(cards, saved) };
    }
  } catch {
    // no snapshot yet, or unreadable: build one
  }
  const enabled = index.cards.filter((c) => c.enabled);
  const paths = enabled.map((c) => c.path);
  const matcher = new Matcher(enabled);
  if (opts.persist) {
    try {
      const snapshot = { table: matcher.table, automaton: matcher.automaton, paths };
      atomicWrite(snapshotPath(vault), saveSnapshot(index.stamp, snapshot));
    } catch {
      // a read-only vault still works; it just rebuilds next time
    }
  }
  return { stamp: index.stamp, index, cards: new CardList(paths, index.entries), matcher };
}

/** A ref's card when recall shows it as a "see also" line: the one rule, vault/ `refTarget`. */
export function resolveRef(name: string, loaded: Loaded, kinds: Vault["kinds"]): CardMeta | undefined {
  loaded.names ??= indexLookup(kinds, loaded.index);
  const target = refTarget(loaded.names, name);
  return target.status === "ok" ? target.card : undefined;
}
