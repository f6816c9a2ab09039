/**
 * The public text of every live card, kept in the editor's server for what needs all of it at once:
 * searching card text, the cards whose text mentions a card, and each card's size in tokens. A card is
 * read again only when its file changed (mtime and size, as the index has them), so after the first
 * request a search costs a scan of memory, not ten thousand file reads; the first one is paid once per
 * server, and `warm` lets the server pay it right after it starts. Private sections are never here:
 * nothing the engine would not inject is searched or counted.
 */
import path from "node:path";
import { publicTextOf } from "../card/index.ts";
import type { CardMeta } from "../card/types.ts";
import { fold } from "../match/index.ts";
import { tokenCounter } from "../recall/index.ts";
import { loadIndex, readNoFollow, type Vault } from "../vault/index.ts";

export interface ShelfEntry {
  card: CardMeta;
  /** The public text, as the engine would inject it (before macros). */
  text: string;
  /** Title, words and text, case-folded, for search; the text starts at `textAt`. */
  folded: string;
  textAt: number;
  /** Tokens of the public text (o200k_base, as a token budget counts them); filled in by `withTokens`. */
  tokens?: number;
}

export class Shelf {
  private readonly entries = new Map<string, { stamp: string; entry: ShelfEntry }>();

  constructor(private readonly vault: Vault) {}

  /** Every live card with its text, each file read only when it changed since the last call. */
  all(): ShelfEntry[] {
    const { cards } = loadIndex(this.vault);
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

  /** `all()`, with every card's token count (the counter is loaded on first use: a few hundred ms). */
  async withTokens(): Promise<ShelfEntry[]> {
    const entries = this.all();
    const count = await tokenCounter();
    for (const e of entries) e.tokens ??= count(e.text);
    return entries;
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
    return { card, text, folded: `${words}\n${fold(text)}`, textAt: words.length + 1 };
  }
}
