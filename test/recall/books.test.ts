/**
 * Recall over a conversation's books (src/recall/books.ts, _library.ts, _union.ts): which books a
 * conversation reads, and one recall over all of them: one scan, one budget, ids that keep two books'
 * cards of one name apart, the settings of the books read, and a server that follows a book's edits.
 */
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import {
  chooseBooks,
  chosenCards,
  type Engine,
  namedAt,
  openEngine,
  type RecallResult,
} from "../../src/recall/index.ts";
import type { BookInfo } from "../../src/vault/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const opened: Engine[] = [];
const made: string[] = [];
afterEach(() => {
  for (const e of opened.splice(0)) e.close();
  for (const dir of made.splice(0)) removeDir(dir);
});

const book = (name: string, characters: string[] = [], active: BookInfo["active"] = "auto"): BookInfo => ({
  name,
  root: `/v/books/${name}`,
  title: name,
  characters,
  active,
});
const SHELF = [
  { ...book("main"), root: "/v" },
  book("eldoria"),
  book("lyra", ["Lyra"]),
  book("notes", [], "asked"),
  book("seraphina", ["Seraphina", "Sera"]),
];

describe("which books a conversation reads", () => {
  test.each([
    ["no system prompt", {}, ["main", "eldoria"]],
    ["a prompt naming no character", { system: "You are a helpful assistant." }, ["main", "eldoria"]],
    [
      "Seraphina's prompt",
      { system: "Write Seraphina's next reply in a chat with Ann." },
      ["main", "eldoria", "seraphina"],
    ],
    ["a character's other name", { system: "You are Sera, a guardian." }, ["main", "eldoria", "seraphina"]],
    [
      "the first character named wins",
      { system: "You are Lyra. Seraphina is your rival." },
      ["main", "eldoria", "lyra"],
    ],
    ["a name inside a longer word is no name", { system: "You are Lyrael the seer." }, ["main", "eldoria"]],
    ["the caller's character (--char)", { character: "lyra" }, ["main", "eldoria", "lyra"]],
    ["books named", { named: ["Seraphina", "NOTES"] }, ["notes", "seraphina"]],
    ["main named alone", { named: ["main"] }, ["main"]],
  ])("%s: %j", (_, ask, books) => {
    expect(chooseBooks(SHELF, ask).books).toEqual(books);
  });

  test("a book named that the vault does not have is said back, the others read", () => {
    expect(chooseBooks(SHELF, { named: ["eldoria", "atlantis"] })).toEqual({
      books: ["eldoria"],
      unknown: ["atlantis"],
    });
  });

  test("a name is a word of its own, ignoring case; scripts without spaces need no word edges", () => {
    expect(namedAt("Hi SERAPHINA!", "Seraphina")).toBe(3);
    expect(namedAt("Seraphinas", "Seraphina")).toBe(-1);
    expect(namedAt("你好塞拉菲娜。", "塞拉菲娜")).toBe(2);
  });
});

function card(root: string, rel: string, keywords: string, body: string, extra = ""): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `---\nkeywords: [${keywords}]\n${extra}---\n${body}\n`);
}

async function engineOver(root: string, watch = false): Promise<Engine> {
  const engine = await openEngine(root, { segmenter: false, ...(watch && { watch: true, recheckMs: 50 }) });
  opened.push(engine);
  return engine;
}

function vaultOfBooks(): string {
  const root = makeVault();
  made.push(root);
  card(root, "books/eldoria/places/Glade.md", "glade", "ELDORIA: the glade.");
  card(root, "books/seraphina/people/Mother.md", "mother", "SERAPHINA: {{char}}'s mother.");
  card(root, "books/lyra/people/Mother.md", "mother", "LYRA: a bard's mother.");
  card(root, "books/lyra/Rules.md", "rules", "LYRA-ALWAYS: Lyra sings.", "context: always\n");
  fs.writeFileSync(path.join(root, "books/seraphina/book.yaml"), "character: Seraphina\n");
  fs.writeFileSync(path.join(root, "books/lyra/book.yaml"), "character: Lyra\n");
  return root;
}

const ids = (r: RecallResult) => chosenCards(r).map((c) => c.id);

describe("one recall over several books", () => {
  test("a vault without books answers as before: no books said, the same ids", async () => {
    const root = makeVault();
    made.push(root);
    const result = await (await engineOver(root)).recall([
      { role: "user", text: "Alice and the corner cafe" },
    ]);
    expect(result.books).toBeUndefined();
    expect(ids(result)).toEqual(["place/the corner cafe", "people/Alice"]);
  });

  test("each character's conversation reads its own book: the other's cards, always-on ones included, never", async () => {
    const engine = await engineOver(vaultOfBooks());
    const turns = [{ role: "user" as const, text: "How is your mother? Alice says the glade is lovely." }];
    const sera = await engine.recall(turns, { books: { system: "You are Seraphina, a forest guardian." } });
    expect(sera.books).toEqual(["main", "eldoria", "seraphina"]);
    expect(ids(sera)).toEqual(["people/Alice", "eldoria:place/Glade", "seraphina:people/Mother"]);
    expect(sera.blocks[0]?.text).toContain("Seraphina's mother");
    expect(sera.blocks[0]?.text).not.toContain("LYRA");
    const lyra = await engine.recall(turns, { books: { system: "You are Lyra, a bard." } });
    expect(ids(lyra)).toContain("lyra:people/Mother");
    expect(ids(lyra)).toContain("lyra:entry/Rules");
    expect(lyra.blocks.map((b) => b.text).join("")).not.toContain("SERAPHINA");
  });

  test("two books' cards of one name are two cards, each with its own id", async () => {
    const engine = await engineOver(vaultOfBooks());
    const both = await engine.recall([{ role: "user", text: "mother" }], {
      books: { named: ["seraphina", "lyra"] },
    });
    expect(ids(both).sort()).toEqual(["lyra:entry/Rules", "lyra:people/Mother", "seraphina:people/Mother"]);
  });

  test("a card two books hold word for word goes in once: the same book imported twice is not sent twice", async () => {
    const root = makeVault();
    made.push(root);
    // One lorebook imported into the vault's own cards (the HTTP API's default) and into a book of its own.
    card(
      root,
      "people/Weather.md",
      "weather",
      "SYSTEM: add the weather to every scene.",
      "context: always\n",
    );
    card(
      root,
      "books/hxh/people/Weather.md",
      "weather",
      "SYSTEM: add the weather to every scene.",
      "context: always\n",
    );
    const result = await (await engineOver(root)).recall([{ role: "user", text: "hello" }]);
    expect(ids(result)).toEqual(["people/Weather"]);
    expect(result.selection.find((e) => e.id === "hxh:people/Weather")).toMatchObject({
      verdict: "in_context",
      reason: "quoted",
    });
    // Another text is another card, name or no name.
    card(root, "books/hxh/people/Weather.md", "weather", "SYSTEM: add the season too.", "context: always\n");
    const other = await (await engineOver(root)).recall([{ role: "user", text: "hello" }]);
    expect(ids(other).sort()).toEqual(["hxh:people/Weather", "people/Weather"]);
  });

  test("one budget for the books together: the farthest cards are left out, whichever book they are in", async () => {
    const engine = await engineOver(vaultOfBooks());
    const turns = [{ role: "user" as const, text: "the glade, Alice and my mother" }];
    const result = await engine.recall(turns, {
      budget: 60,
      books: { named: ["main", "eldoria", "seraphina"] },
    });
    const left = result.selection.filter((e) => e.verdict === "left_out").map((e) => e.id);
    expect(ids(result).length).toBeGreaterThan(0);
    expect(left.length).toBeGreaterThan(0);
    expect(result.blocks[0]!.text.length).toBeLessThan(200);
  });

  test("the cards in context are set aside across books, by id", async () => {
    const engine = await engineOver(vaultOfBooks());
    const result = await engine.recall([{ role: "user", text: "mother and the glade" }], {
      books: { named: ["eldoria", "seraphina"] },
      inContext: new Set(["seraphina:people/Mother"]),
    });
    expect(ids(result)).toEqual(["eldoria:place/Glade"]);
  });

  test("a book's own settings.yaml is read with it; the vault's own wins where it speaks", async () => {
    const root = vaultOfBooks();
    fs.writeFileSync(path.join(root, "books/eldoria/settings.yaml"), "reach: named\nuser: Wanderer\n");
    const engine = await engineOver(root);
    const result = await engine.recall([{ role: "user", text: "mother" }], {
      books: { system: "You are Seraphina." },
    });
    // {{char}} is the conversation's character, as its book is bound to her.
    expect(result.blocks[0]?.text).toContain("SERAPHINA: Seraphina's mother.");
    fs.writeFileSync(path.join(root, "settings.yaml"), "char: Sera the Guardian\n");
    const own = await engine.recall([{ role: "user", text: "mother" }], {
      books: { system: "You are Seraphina." },
    });
    expect(own.blocks[0]?.text).toContain("SERAPHINA: Sera the Guardian's mother.");
  });

  test("a card asked for by name is found in any book, or in one book as book:name", async () => {
    const engine = await engineOver(vaultOfBooks());
    const turns = [{ role: "user" as const, text: "hello" }];
    const any = await engine.recall(turns, { books: { named: ["eldoria", "lyra"] }, ask: ["Glade"] });
    expect(ids(any)).toContain("eldoria:place/Glade");
    const scoped = await engine.recall(turns, {
      books: { named: ["seraphina", "lyra"] },
      ask: ["seraphina:Mother"],
    });
    expect(ids(scoped)).toContain("seraphina:people/Mother");
    expect(ids(scoped)).not.toContain("lyra:people/Mother");
  });

  test("a server's engine sees a card added to a book, named by the vault's one watcher", async () => {
    const root = vaultOfBooks();
    const engine = await engineOver(root, true);
    const ask = { books: { named: ["eldoria"] } };
    expect(ids(await engine.recall([{ role: "user", text: "the river" }], ask))).toEqual([]);
    card(root, "books/eldoria/places/River.md", "river", "ELDORIA: the river.");
    const deadline = Date.now() + 5000;
    let seen: string[] = [];
    while (Date.now() < deadline && seen.length === 0) {
      await Bun.sleep(50);
      seen = ids(await engine.recall([{ role: "user", text: "the river" }], ask));
    }
    expect(seen).toEqual(["eldoria:place/River"]);
  });
});
