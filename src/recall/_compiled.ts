/**
 * The compiled state of one vault version: the matcher (from the snapshot when it is current) and
 * the cards it was built from, decoded lazily from the index. Private to recall/.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CardMeta } from "../card/types.ts";
import { type CardSource, fold, loadSnapshot, Matcher, saveSnapshot } from "../match/index.ts";
import { atomicWrite, STATE_DIR, type Vault, type VaultIndex } from "../vault/index.ts";

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
  /** Folded key, title and `kind/key` → card, built on first use (refs, candidates). */
  names?: Map<string, CardMeta>;
  titles?: string[];
}

/** Where the compiled matcher of the current vault state is kept for the next cold start. */
function snapshotPath(vault: Vault): string {
  return join(vault.root, STATE_DIR, "matcher.bin");
}

/**
 * The matcher of this vault state: loaded from the snapshot when it was saved for `stamp` (then only
 * the cards that get hit are ever decoded), else built from every enabled card and saved.
 */
export function compile(vault: Vault, index: VaultIndex): Loaded {
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
  try {
    const snapshot = { table: matcher.table, automaton: matcher.automaton, paths };
    atomicWrite(snapshotPath(vault), saveSnapshot(index.stamp, snapshot));
  } catch {
    // a read-only vault still works; it just rebuilds next time
  }
  return { stamp: index.stamp, index, cards: new CardList(paths, index.entries), matcher };
}

/**
 * A ref names a card by `kind/key`, by key or by title. The exact file name is looked up directly;
 * anything else (another capitalisation, a title) falls back to a table of every card's names.
 */
export function resolveRef(name: string, loaded: Loaded, kinds: Vault["kinds"]): CardMeta | undefined {
  const wanted = name.trim();
  const slash = wanted.indexOf("/");
  for (const kind of kinds.kinds) {
    const key = slash > 0 && wanted.slice(0, slash) === kind.name ? wanted.slice(slash + 1) : wanted;
    const meta = loaded.index.entries.meta(kind.dir === "" ? `${key}.md` : `${kind.dir}/${key}.md`);
    if (meta?.enabled) return meta;
  }
  if (!loaded.names) {
    const names = new Map<string, CardMeta>();
    const all = loaded.cards.all();
    const add = (k: string, c: CardMeta) => {
      if (!names.has(k)) names.set(k, c);
    };
    for (const c of all) add(fold(`${c.kind}/${c.key}`), c);
    for (const c of all) add(fold(c.key), c);
    for (const c of all) add(fold(c.title), c);
    loaded.names = names;
  }
  return loaded.names.get(fold(wanted));
}
