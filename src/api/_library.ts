/**
 * The vault's books as the editor switches between them (docs/BOOKS.md, docs/HTTP-API.md):
 * `GET /api/books` lists each book (`main`, the vault's own cards, first) with its title, the
 * characters it is bound to, whether it is read unasked, how many cards it holds, and which of the
 * recently seen conversations read it (from their turn records). Every other endpoint about cards
 * takes `?book=NAME` (or `X-Lorecards-Book`) and is then about that book's cards (index.ts).
 */
import { MAIN_BOOK } from "../vault/index.ts";
import type { Context } from "./_routes.ts";

/** Conversations looked at for the books they read, and turns of each. */
const CONVERSATIONS = 50;
const TURNS = 100;

export async function books(ctx: Context) {
  const used = await ctx.useStore(async (s) => {
    const byBook = new Map<string, { id: string; name: string | null; last_seen: string }[]>();
    for (const c of await s.conversations(CONVERSATIONS)) {
      const turns = await s.turns(c.id, TURNS);
      const read = new Set(turns.flatMap((t) => t.books ?? [MAIN_BOOK]));
      for (const book of read) {
        const list = byBook.get(book) ?? [];
        list.push({ id: c.id, name: c.name, last_seen: new Date(c.lastSeen).toISOString() });
        byBook.set(book, list);
      }
    }
    return byBook;
  });
  const list = await Promise.all(
    ctx.main.books().map(async (b) => {
      const engine = ctx.main.book(b.name);
      const cards = engine ? (await engine.index()).index.cards.length : 0;
      return {
        name: b.name,
        title: b.title,
        characters: b.characters,
        // `auto`: read in every conversation (or, bound, in its characters'); `asked`: only when named.
        active: b.active,
        cards,
        conversations: used.get(b.name) ?? [],
      };
    }),
  );
  return { books: list, current: ctx.book };
}
