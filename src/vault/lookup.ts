/**
 * Cards by name: the one rule behind `read NAME`, MCP's read_card and update_recent, the refs recall
 * renders as "see also" lines and the refs `check` reports. A name is trimmed and may end in `.md`
 * (people copy file names from `ls`). It is tried, best first, as
 *   1. `kind/key` exactly, the kind by its name or its folder (`event/x`, `events/x`),
 *   2. a key exactly,
 *   3. `kind/key` again, both sides case-folded (match/ `fold`: Unicode folds and NFKC),
 *   4. a key, case-folded,
 *   5. a title, case-folded.
 * The first step that names any card decides; among the cards it names, an enabled card wins over a
 * disabled one, then the kind table's order, then the file name's. A disabled card is found (it can be
 * read and edited); what it means elsewhere is the caller's, and for refs it is `refTarget`'s: a ref to
 * a disabled card is not rendered by recall, and check warns about it.
 */
import type { CardMeta, KindsConfig } from "../card/types.ts";
import { fold } from "../match/index.ts";
import type { VaultIndex } from "./catalog.ts";

/** The cards a lookup searches. */
export interface NamedCards {
  /** Every card, enabled or not, kinds in table order: read at most once, and only when needed. */
  all(): readonly CardMeta[];
  /** A fast path: the cards whose key is exactly `key`, kinds in table order (no full table built). */
  withKey?(key: string): readonly CardMeta[];
  /**
   * With `withKey`, no table at all: the cards whose key (or title), trimmed and folded, is one of
   * `folded`, in `all()`'s order.
   */
  withFolded?(by: "key" | "title", folded: readonly string[]): readonly CardMeta[];
}

export interface LookupOptions {
  /** Only cards of this kind (its name). */
  kind?: string;
}

type Table = Map<string, CardMeta[]>;

/** Case-folded names → cards, one table per step 3–5, built on the first name that needs them. */
interface Folded {
  kindKey: Table;
  key: Table;
  title: Table;
}

export class CardLookup {
  private byKey?: Table;
  private folded?: Folded;

  constructor(private readonly cards: NamedCards) {}

  /** The card `name` names, or undefined. */
  find(name: string, opts: LookupOptions = {}): CardMeta | undefined {
    return best(this.named(name, opts));
  }

  /** Every card of the step that decides for `name` (empty when none names it), in the vault's order. */
  named(name: string, opts: LookupOptions = {}): readonly CardMeta[] {
    const wanted = cleanName(name);
    const keep = (list: readonly CardMeta[] | undefined) =>
      opts.kind === undefined ? (list ?? []) : (list ?? []).filter((c) => c.kind === opts.kind);
    const split = splitName(wanted);
    if (split.prefix !== undefined) {
      const prefix = split.prefix;
      const named = keep(this.exact(split.key)).filter((c) => c.kind === prefix || dirOf(c) === prefix);
      if (named.length > 0) return named;
    }
    const exact = keep(this.exact(wanted));
    if (exact.length > 0) return exact;
    const key = fold(wanted);
    for (const step of ["kindKey", "key", "title"] as const) {
      const named = keep(this.foldedNamed(step, key));
      if (named.length > 0) return named;
    }
    return [];
  }

  /** The cards whose name of `step` (3–5 above) folds to `key`, in the vault's order. */
  private foldedNamed(step: keyof Folded, key: string): readonly CardMeta[] | undefined {
    const withFolded = this.cards.withFolded?.bind(this.cards);
    if (!withFolded) return this.foldedTables()[step].get(key);
    if (step !== "kindKey") return withFolded(step, [key]);
    // `kind/key`: the key is what follows one of the slashes (a key folded may hold one too).
    const keys: string[] = [];
    for (let at = key.indexOf("/"); at !== -1; at = key.indexOf("/", at + 1))
      keys.push(key.slice(at + 1).trim());
    return keys.length === 0 ? [] : withFolded("key", keys).filter((c) => kindKeys(c).includes(key));
  }

  private exact(key: string): readonly CardMeta[] | undefined {
    if (this.cards.withKey) return this.cards.withKey(key);
    this.byKey ??= group(this.cards.all(), (c) => [c.key]);
    return this.byKey.get(key);
  }

  private foldedTables(): Folded {
    if (this.folded) return this.folded;
    const all = this.cards.all();
    this.folded = {
      kindKey: group(all, kindKeys),
      key: group(all, (c) => [fold(c.key.trim())]),
      title: group(all, (c) => [fold(c.title.trim())]),
    };
    return this.folded;
  }
}

/** A card's `kind/key` names, folded: by its kind's name and by its folder. */
function kindKeys(c: CardMeta): string[] {
  return [`${c.kind}/${c.key}`, `${dirOf(c) || c.kind}/${c.key}`].map(fold);
}

/** A lookup over a plain list of cards (check, tests). */
export function lookupIn(cards: readonly CardMeta[]): CardLookup {
  return new CardLookup({ all: () => cards });
}

/**
 * A lookup over the vault index: exact keys are found by path, folded keys and titles by the index's
 * own columns, so neither a cold process nor a server after each save builds a table of every card.
 */
export function indexLookup(kinds: KindsConfig, index: Pick<VaultIndex, "cards" | "entries">): CardLookup {
  const prefixes = kinds.kinds.map((k) => (k.dir === "" ? "" : `${k.dir}/`));
  return new CardLookup({
    all: () => index.cards,
    withKey: (key) => prefixes.flatMap((p) => index.entries.meta(`${p}${key}.md`) ?? []),
    withFolded: (by, folded) => index.entries.named(by, folded),
  });
}

/** What a card's ref names: a card recall shows ("see also"), a disabled card, or nothing. */
export type RefTarget =
  | { status: "ok"; card: CardMeta }
  | { status: "disabled"; card: CardMeta }
  | { status: "missing" };

/** The one rule for refs, shared by recall (renders "ok" only) and check (warns about the others). */
export function refTarget(lookup: CardLookup, ref: string): RefTarget {
  const card = lookup.find(ref);
  if (card === undefined) return { status: "missing" };
  return card.enabled ? { status: "ok", card } : { status: "disabled", card };
}

/** A name as written, trimmed and without a trailing `.md`. */
export function cleanName(name: string): string {
  const trimmed = name.trim();
  return trimmed.endsWith(".md") ? trimmed.slice(0, -3) : trimmed;
}

/** `kind/key` → both parts; a name without a slash (or starting with one) is all key. */
export function splitName(name: string): { prefix?: string; key: string } {
  const slash = name.indexOf("/");
  return slash > 0 ? { prefix: name.slice(0, slash), key: name.slice(slash + 1) } : { key: name };
}

/** The folder of a card's kind, from its path ("" for the vault root). */
function dirOf(card: Pick<CardMeta, "path" | "key">): string {
  return card.path.slice(0, Math.max(0, card.path.length - card.key.length - 4));
}

function best(cards: readonly CardMeta[]): CardMeta | undefined {
  return cards.find((c) => c.enabled) ?? cards[0];
}

function group(cards: readonly CardMeta[], names: (c: CardMeta) => string[]): Table {
  const table: Table = new Map();
  for (const c of cards) {
    for (const name of new Set(names(c))) {
      const same = table.get(name);
      if (same) same.push(c);
      else table.set(name, [c]);
    }
  }
  return table;
}
