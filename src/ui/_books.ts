// The books of the vault in the page (docs/BOOKS.md). The switch over the list says which book's cards
// the page shows and edits (`X-Lorecards-Book` on each call, _client.ts; `?book=` in the address, so a
// reload or a shared link stays in it). The Books panel shows each book: the characters it is bound to,
// its cards, and the conversations whose turns read it. "Try as" chooses the books the try box reads:
// those a conversation read, those a character's conversations read, or those read unasked.
import type { Books } from "../api/types.ts";
import { api, currentBook, setBook } from "./_client.ts";
import { $, el, formatTime } from "./_dom.ts";
import { plural } from "./_words.ts";

type Book = Books["books"][number];
type Reader = Book["conversations"][number];

export interface ShelfHooks {
  /** The page now shows another book: its kinds and cards are to be read again. */
  switched(): Promise<void>;
  /** Whether the open card may be left (asks when it has unsaved changes). */
  leaveOk(): boolean;
  fail(err: unknown): void;
}

/** What a try and its explanation send to read the books chosen in "Try as". */
export interface TryAs {
  char?: string;
  books?: string[];
}

const label = (b: Book) => (b.title && b.title !== b.name ? `${b.title} (${b.name})` : b.name);
const readerName = (c: Reader) => c.name ?? `a conversation of ${formatTime(c.last_seen)}`;

export class Shelf {
  books: Book[] = [];
  /** Each recent conversation and the books its turns read, newest first. */
  private readers: { reader: Reader; books: string[] }[] = [];

  constructor(private readonly hooks: ShelfHooks) {
    $("#book").addEventListener("change", (e) => this.choose((e.target as HTMLSelectElement).value));
  }

  /** A person chose `name`: unsaved changes to the open card are asked about first. */
  choose(name: string): void {
    if (!this.hooks.leaveOk()) {
      ($("#book") as HTMLSelectElement).value = currentBook();
      return;
    }
    this.switchTo(name).catch(this.hooks.fail);
  }

  /** Reads the books; the page's book is the address's `?book=` when the vault has it. */
  async load(): Promise<void> {
    this.books = (await api<Books>("GET", "/api/books")).books;
    const byId = new Map<string, { reader: Reader; books: string[] }>();
    for (const b of this.books)
      for (const c of b.conversations) {
        const entry = byId.get(c.id) ?? { reader: c, books: [] };
        entry.books.push(b.name);
        byId.set(c.id, entry);
      }
    this.readers = [...byId.values()].sort((a, b) => b.reader.last_seen.localeCompare(a.reader.last_seen));
    const asked = new URL(location.href).searchParams.get("book")?.toLowerCase();
    setBook(this.books.some((b) => b.name === asked) ? asked : undefined);
    this.fill();
  }

  /** Shows `name`'s cards (`main`: the vault's own). */
  async switchTo(name: string): Promise<void> {
    setBook(name);
    ($("#book") as HTMLSelectElement).value = currentBook();
    const url = new URL(location.href);
    if (currentBook() === "main") url.searchParams.delete("book");
    else url.searchParams.set("book", currentBook());
    history.replaceState(history.state, "", `${url.pathname}${url.search}${url.hash}`);
    await this.hooks.switched();
  }

  /** The fields of a try: the character's books, or the books the conversation's turns read. */
  tryAs(): TryAs {
    const value = ($("#try-as") as HTMLSelectElement).value;
    if (value.startsWith("char:")) return { char: value.slice(5) };
    const found = this.readers.find((r) => `conv:${r.reader.id}` === value);
    return found ? { books: found.books } : {};
  }

  /** Chooses a conversation in "Try as" (from the Books panel). */
  tryAsConversation(id: string): void {
    ($("#try-as") as HTMLSelectElement).value = `conv:${id}`;
    $("#try-text").focus();
  }

  private fill(): void {
    const many = this.books.length > 1;
    const select = $("#book") as HTMLSelectElement;
    select.replaceChildren(
      ...this.books.map((b) => el("option", { value: b.name }, `${label(b)} · ${plural(b.cards, "card")}`)),
    );
    select.value = currentBook();
    $(".book-switch").hidden = !many;
    const as = $("#try-as") as HTMLSelectElement;
    const kept = as.value;
    const characters = [...new Set(this.books.flatMap((b) => b.characters))].sort();
    as.replaceChildren(
      el("option", { value: "" }, "Try as: no character"),
      ...characters.map((c) => el("option", { value: `char:${c}` }, `Try as ${c}`)),
      ...this.readers.map(({ reader, books }) =>
        el("option", { value: `conv:${reader.id}` }, `Try as in ${readerName(reader)} (${books.join(", ")})`),
      ),
    );
    as.value = [...as.options].some((o) => o.value === kept) ? kept : "";
    as.hidden = !many;
    $("#shelf").hidden = !many;
  }
}

/** The Books panel: each book, what it is bound to, its cards and the conversations that read it. */
export async function loadShelf(body: HTMLElement, shelf: Shelf): Promise<void> {
  await shelf.load();
  body.replaceChildren(
    el(
      "ul",
      { class: "shelf-list" },
      ...shelf.books.map((b) =>
        el(
          "li",
          { class: "shelf-book", "data-book": b.name },
          el("h4", {}, label(b), b.name === currentBook() ? el("span", { class: "tag" }, "shown") : null),
          el(
            "p",
            { class: "muted shelf-about" },
            [
              plural(b.cards, "card"),
              b.name === "main"
                ? "the vault's own cards"
                : b.characters.length > 0
                  ? `read in ${b.characters.join(", ")}'s conversations`
                  : b.active === "asked"
                    ? "read only when a conversation names it"
                    : "read in every conversation",
            ].join(" · "),
          ),
          b.name === currentBook()
            ? null
            : el(
                "button",
                { type: "button", class: "small", onclick: () => shelf.choose(b.name) },
                `Show ${label(b)}'s cards`,
              ),
          b.conversations.length > 0
            ? el(
                "ul",
                { class: "shelf-readers", "aria-label": `Conversations that read ${b.name}` },
                ...b.conversations.map((c) =>
                  el(
                    "li",
                    {},
                    el(
                      "button",
                      {
                        type: "button",
                        class: "link",
                        title: `Try a sentence as this conversation would (${c.id})`,
                        onclick: () => shelf.tryAsConversation(c.id),
                      },
                      readerName(c),
                    ),
                  ),
                ),
              )
            : el("p", { class: "muted" }, "No recent conversation read it."),
        ),
      ),
    ),
  );
}
