/**
 * A conversation's books as one vault version (docs/BOOKS.md): the matchers of its books side by side
 * as the layers of one matcher (each layer's cards shifted to where its book's cards start), and their
 * cards as one list, so recall runs once over every book of the conversation: one scan, one budget,
 * one dedupe and replay, tiers and timed effects over all of them. A card of a book other than the
 * vault's own carries its book (`book`), so its id is `book:kind/key` and two books may each hold a
 * card of one name. Made per set of book versions and kept by the engine; making it reads no card.
 * Private to recall/.
 */
import type { BrokenCard, CardMeta } from "../card/types.ts";
import { type Layer, Matcher } from "../match/index.ts";
import { MAIN_BOOK } from "../vault/index.ts";
import { type Cards, type Compiled, findNamed } from "./_compiled.ts";
import { cardById } from "./stages/policy.ts";

export interface BookPart {
  /** The book's name (`main`: the vault's own cards). */
  name: string;
  compiled: Compiled;
}

/** Cards decoded and tagged with their book, kept before the cache starts again. */
const MAX_CACHED = 5000;

class UnionCards implements Cards {
  readonly length: number;
  private readonly starts: number[];
  private readonly cache = new Map<number, CardMeta | null>();

  constructor(private readonly parts: readonly BookPart[]) {
    let n = 0;
    this.starts = parts.map((p) => {
      const at = n;
      n += p.compiled.loaded.cards.length;
      return at;
    });
    this.length = n;
  }

  startOf(part: number): number {
    return this.starts[part]!;
  }

  at(index: number): CardMeta | undefined {
    let card = this.cache.get(index);
    if (card === undefined) {
      let i = this.parts.length - 1;
      while (i > 0 && this.starts[i]! > index) i--;
      const part = this.parts[i]!;
      card = tagged(part.name, part.compiled.loaded.cards.at(index - this.starts[i]!)) ?? null;
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(index, card);
    }
    return card ?? undefined;
  }
}

/** A card of book `name` as the union lists it: the vault's own cards as they are. */
function tagged(name: string, card: CardMeta | undefined): CardMeta | undefined {
  if (card === undefined || name === MAIN_BOOK) return card;
  return { ...card, book: name };
}

/** `book:rest` when `book` is one of `names`; else undefined. */
function inBook(text: string, names: ReadonlySet<string>): { book: string; rest: string } | undefined {
  const colon = text.indexOf(":");
  if (colon <= 0) return undefined;
  const book = text.slice(0, colon).trim().toLowerCase();
  return names.has(book) ? { book, rest: text.slice(colon + 1) } : undefined;
}

export function unionOf(parts: readonly BookPart[]): Compiled {
  const cards = new UnionCards(parts);
  const layers: Layer[] = parts.flatMap((p, i) =>
    p.compiled.loaded.matcher.layers.map((l) => ({ ...l, offset: l.offset + cards.startOf(i) })),
  );
  const byName = new Map(parts.map((p) => [p.name, p]));
  const names = new Set(byName.keys());
  const broken: BrokenCard[] = parts.flatMap((p) =>
    (p.compiled.broken ?? p.compiled.loaded.index.broken).map((b) =>
      p.name === MAIN_BOOK ? b : { ...b, path: `books/${p.name}/${b.path}` },
    ),
  );
  const first = parts[0]!.compiled;
  return {
    loaded: {
      stamp: parts.map((p) => `${p.name}@${p.compiled.loaded.stamp}`).join("+"),
      index: first.loaded.index,
      cards,
      matcher: new Matcher(cards, layers),
    },
    kinds: first.kinds,
    books: parts.map((p) => p.name),
    broken,
    publicText(card) {
      const part = byName.get(card.book ?? MAIN_BOOK);
      if (!part) throw new Error(`no book "${card.book}" in this recall`);
      return part.compiled.publicText(card);
    },
    byId(id) {
      const scoped = inBook(id, names);
      const part = byName.get(scoped?.book ?? MAIN_BOOK);
      return part && tagged(part.name, cardById(part.compiled, scoped?.rest ?? id));
    },
    named(name) {
      const scoped = inBook(name, names);
      if (scoped) {
        const part = byName.get(scoped.book)!;
        return tagged(part.name, findNamed(scoped.rest, part.compiled));
      }
      for (const part of parts) {
        const found = findNamed(name, part.compiled);
        if (found) return tagged(part.name, found);
      }
      return undefined;
    },
  };
}
