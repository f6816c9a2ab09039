/**
 * The books of a vault on disk (src/vault/books.ts): `main` is the vault's own cards, each folder of
 * `books/` one more book laid out as a vault, its book.yaml read for its title, the characters it is
 * bound to and whether it is read unasked. The vault's own index never holds a book's card.
 */
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import {
  BookShelf,
  bookNameOf,
  bookNameProblem,
  bookRoot,
  loadIndex,
  openVault,
  readBooks,
  vaultCensus,
} from "../../src/vault/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) removeDir(dir);
});

function vaultWithBooks(): string {
  const root = makeVault();
  made.push(root);
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  write("books/eldoria/places/Glade.md", "---\nkeywords: [glade]\n---\nA glade.\n");
  write("books/Seraphina/Shadowfang.md", "---\nkeywords: [shadowfang]\n---\nA blade.\n");
  write("books/Seraphina/book.yaml", "title: Seraphina's lorebook\ncharacter: Seraphina\n");
  write("books/notes/book.yaml", "active: asked\n");
  write("books/README.md", "not a book: a file\n");
  write("books/.hidden/x.md", "---\nkeywords: [x]\n---\nx\n");
  return root;
}

describe("a book's name", () => {
  test.each([
    ["Seraphina", "seraphina"],
    ["Mira's book", "mira-s-book"],
    ["  The Ashen  Kingdom! ", "the-ashen-kingdom"],
    ["エルドリア", "エルドリア"],
    ["st-worldinfo-Eldoria", "st-worldinfo-eldoria"],
    ["+++", "book"],
  ])("the title %p makes the book %p", (title, name) => {
    expect(bookNameOf(title)).toBe(name);
    expect(bookNameProblem(name)).toBeNull();
  });

  test.each(["a+b", "a/b", "..", ".hidden", "a b", ""])(
    "%p is no book name: a base URL or a folder could not carry it",
    (name) => {
      expect(bookNameProblem(name)).not.toBeNull();
    },
  );
});

describe("the books of a vault", () => {
  test("a vault without books/ is one book, main, the vault itself", () => {
    const root = makeVault();
    made.push(root);
    expect(readBooks(root)).toEqual([{ name: "main", root, title: "main", characters: [], active: "auto" }]);
  });

  test("each folder of books/ is a book, named in lower case, its book.yaml read; files and hidden folders are not", () => {
    const root = vaultWithBooks();
    const warnings: string[] = [];
    const books = readBooks(root, (w) => warnings.push(w));
    expect(books.map((b) => [b.name, b.title, b.characters, b.active])).toEqual([
      ["main", "main", [], "auto"],
      ["eldoria", "eldoria", [], "auto"],
      ["notes", "notes", [], "asked"],
      ["seraphina", "Seraphina's lorebook", ["Seraphina"], "auto"],
    ]);
    expect(warnings).toEqual([]);
    // A book is found in any case, in the folder as it is written.
    expect(bookRoot(root, "SERAPHINA")).toBe(path.join(root, "books", "Seraphina"));
    expect(bookRoot(root, "main")).toBe(root);
  });

  test("a book.yaml setting that does not read is said and left at its default", () => {
    const root = vaultWithBooks();
    fs.writeFileSync(path.join(root, "books/eldoria/book.yaml"), "active: sometimes\ncolour: red\n");
    const warnings: string[] = [];
    const eldoria = readBooks(root, (w) => warnings.push(w)).find((b) => b.name === "eldoria");
    expect(eldoria?.active).toBe("auto");
    expect(warnings.join("\n")).toContain("active must be auto or asked");
    expect(warnings.join("\n")).toContain('unknown setting "colour"');
  });

  test("the vault's own index never holds a book's cards, and the census names books/ as the books", () => {
    const root = vaultWithBooks();
    const index = loadIndex(openVault(root));
    expect(index.cards.some((c) => c.path.startsWith("books/"))).toBe(false);
    expect(index.cards.length).toBeGreaterThan(0);
    const census = vaultCensus(openVault(root));
    expect(census.skipped).toContainEqual({
      path: "books/",
      reason: expect.stringContaining("the vault's books"),
    });
  });

  test("a server's shelf follows a book added and a book.yaml changed", () => {
    const root = vaultWithBooks();
    const shelf = new BookShelf(root);
    expect(shelf.current().map((b) => b.name)).toContain("eldoria");
    fs.mkdirSync(path.join(root, "books", "lyra"));
    expect(shelf.current().map((b) => b.name)).toContain("lyra");
    fs.writeFileSync(path.join(root, "books/lyra/book.yaml"), "characters: [Lyra, Lyra the Bard]\n");
    expect(shelf.find("LYRA")?.characters).toEqual(["Lyra", "Lyra the Bard"]);
  });
});
