/**
 * The vault's cards as the editor's server keeps them between requests: the index's cards decoded once
 * per version of the vault (decoding ten thousand rows costs a few hundred milliseconds, a version check
 * a few), and the public text of every live card for what needs all of it at once: searching card text,
 * the cards whose text mentions a card, and each card's size in tokens. A card is read again only when
 * its file changed (mtime and size, as the index has them), so after the first request a search costs a
 * scan of memory, not ten thousand file reads; `warm` lets the server pay the first one in the
 * background. Private sections are never here: nothing the engine would not inject is searched or counted.
 */
import path from "node:path";
import { estimateTokens, publicTextOf } from "../card/index.ts";
import type { CardMeta } from "../card/types.ts";
import { fold } from "../match/index.ts";
import { CardLookup, loadIndex, readNoFollow, type Vault, type VaultIndex } from "../vault/index.ts";

export interface ShelfEntry {
  card: CardMeta;
  /** The public text, as the engine would inject it (before macros). */
  text: string;
  /** Title, words and text, case-folded, for search; the text starts at `textAt`. */
  folded: string;
  textAt: number;
  /**
   * Tokens of the public text, estimated by the one estimate `check`, an import and `try` weigh always-on
   * cards with (card/ `estimateTokens`): the exact count (recall/tokens.ts) takes seconds on a large
   * Chinese book, and a list sorted by size needs the order, not the last token.
   */
  tokens: number;
}

/** The index as of now, its cards decoded once per vault version, and cards by name (vault/ lookup). */
export type Catalog = Pick<VaultIndex, "stamp" | "broken" | "warnings"> & {
  cards: CardMeta[];
  lookup: CardLookup;
};

export class Shelf {
  private readonly entries = new Map<string, { stamp: string; entry: ShelfEntry }>();
  private index?: VaultIndex;
  private decoded?: Catalog;
  private readonly memos = new Map<string, { stamp: string; value: unknown }>();

  constructor(private readonly vault: Vault) {}

  /** The cards, broken files and warnings of the vault as it is now (the index checks what changed). */
  catalog(): Catalog {
    const index = loadIndex(this.vault, { previous: this.index });
    this.index = index;
    if (this.decoded?.stamp !== index.stamp) {
      const { stamp, cards, broken, warnings } = index;
      const byKey = Map.groupBy(cards, (c) => c.key);
      const lookup = new CardLookup({ all: () => cards, withKey: (key) => byKey.get(key) ?? [] });
      this.decoded = { stamp, cards, broken, warnings, lookup };
    }
    return this.decoded;
  }

  /** `make()`'s value, made again only when the vault changed since (the list's JSON, for one). */
  memo<T>(name: string, make: (catalog: Catalog) => T): T {
    const catalog = this.catalog();
    const kept = this.memos.get(name);
    if (kept?.stamp === catalog.stamp) return kept.value as T;
    const value = make(catalog);
    this.memos.set(name, { stamp: catalog.stamp, value });
    return value;
  }

  /** Every live card with its text, each file read only when it changed since the last call. */
  all(): ShelfEntry[] {
    const { cards } = this.catalog();
    const live = new Set<string>();
    const out: ShelfEntry[] = [];
    for (const card of cards) {
      live.add(card.path);
      const stamp = `${card.mtime}:${card.size}`;
      const kept = this.entries.get(card.path);
      if (kept && kept.stamp === stamp) {
        out.push(kept.entry);
        continue;
      }
      const entry = this.read(card);
      if (entry === null) continue;
      this.entries.set(card.path, { stamp, entry });
      out.push(entry);
    }
    for (const p of this.entries.keys()) if (!live.has(p)) this.entries.delete(p);
    return out;
  }

  /** Reads every card once now, so the first search does not wait for it (errors are the next call's). */
  warm(): void {
    setTimeout(() => {
      try {
        this.all();
      } catch {}
    }, 0).unref?.();
  }

  private read(card: CardMeta): ShelfEntry | null {
    let text: string;
    try {
      text = publicTextOf(readNoFollow(this.vault, path.join(this.vault.root, card.path)), this.vault.kinds);
    } catch {
      return null; // gone or turned into a link since the index was read: the next call sees it
    }
    const words = fold([card.title, ...card.keywords, ...card.aliases, ...(card.tags ?? [])].join("\n"));
    return {
      card,
      text,
      folded: `${words}\n${fold(text)}`,
      textAt: words.length + 1,
      tokens: estimateTokens(text),
    };
  }
}
