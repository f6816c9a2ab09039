// The editor's API over a vault of books (docs/BOOKS.md): the books listed with the conversations that
// read each, every card endpoint about the book `?book=` names, a try over several books, and an import
// into a character's own book. In-process, on a real vault and a memory store.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createApi } from "../../src/api/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { openStore, type Store } from "../../src/state/index.ts";
import { apiRequest } from "../support/api-request.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";
import { turnRecord } from "../support/turn-record.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let root: string;
let engine: Engine;
let store: Store;
let handle: (req: Request) => Promise<Response>;

function card(rel: string, keywords: string, body: string): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `---\nkeywords: [${keywords}]\n---\n${body}\n`);
}

beforeEach(async () => {
  root = makeVault();
  card("books/eldoria/places/Glade.md", "glade", "WORLD: the glade.");
  card("books/lyra/people/Mother.md", "mother", "LYRA-BOOK: her mother.");
  fs.writeFileSync(path.join(root, "books/lyra/book.yaml"), "title: Lyra's songs\ncharacter: Lyra\n");
  engine = await openEngine(root, { segmenter: false });
  store = await openStore("memory:");
  handle = createApi({ engine, hosts: ["127.0.0.1"], port: 8766, store });
});
afterEach(async () => {
  engine.close();
  await store.close();
  removeDir(root);
});

const call = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
  handle(apiRequest(method, url, body, headers));
// biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary response JSON by path.
const json = async (res: Response) => (await res.json()) as Record<string, any>;

describe("GET /api/books", () => {
  test("lists the vault's own cards and each book, with the conversations that read it", async () => {
    await store.recordTurn(turnRecord("c-lyra", 1, [], { books: ["main", "eldoria", "lyra"] }));
    await store.recordTurn(turnRecord("c-plain", 1, []));
    const body = await json(await call("GET", "/api/books"));
    expect(body.current).toBe("main");
    const byName = Object.fromEntries(body.books.map((b: { name: string }) => [b.name, b]));
    expect(Object.keys(byName)).toEqual(["main", "eldoria", "lyra"]);
    expect(byName.lyra).toMatchObject({
      title: "Lyra's songs",
      characters: ["Lyra"],
      active: "auto",
      cards: 1,
    });
    expect(byName.lyra.conversations.map((c: { id: string }) => c.id)).toEqual(["c-lyra"]);
    expect(byName.main.conversations.map((c: { id: string }) => c.id).sort()).toEqual(["c-lyra", "c-plain"]);
    expect(byName.eldoria.cards).toBe(1);
  });

  test("a conversation says which books its turns read", async () => {
    await store.recordTurn(turnRecord("c-lyra", 1, [], { books: ["main", "lyra"] }));
    const body = await json(await call("GET", "/api/conversations"));
    expect(body.conversations[0].books).toEqual(["main", "lyra"]);
  });
});

describe("?book=NAME: the card endpoints about one book", () => {
  test("lists, reads and writes that book's cards; the vault's own stay apart", async () => {
    const list = await json(await call("GET", "/api/cards?book=LYRA"));
    expect(list.cards.map((c: { title: string }) => c.title)).toEqual(["Mother"]);
    const read = await json(await call("GET", "/api/cards/people/Mother?book=lyra"));
    expect(JSON.stringify(read)).toContain("LYRA-BOOK");
    const made = await call(
      "POST",
      "/api/cards",
      { kind: "people", key: "Father", title: "Father", body: "A smith." },
      { "x-lorecards-book": "lyra" },
    );
    expect(made.status).toBe(201);
    expect(fs.existsSync(path.join(root, "books/lyra/people/Father.md"))).toBe(true);
    expect(fs.existsSync(path.join(root, "people/Father.md"))).toBe(false);
    const own = await json(await call("GET", "/api/cards"));
    expect(own.cards.map((c: { title: string }) => c.title)).not.toContain("Mother");
  });

  test("a book the vault does not have is 404, naming where the books are listed", async () => {
    const res = await call("GET", "/api/cards?book=atlantis");
    expect(res.status).toBe(404);
    expect((await json(res)).detail).toContain("GET /api/books");
  });
});

describe("POST /api/try over books", () => {
  test("`books` names the books read; `char` brings the character's", async () => {
    const named = await json(
      await call("POST", "/api/try", { text: "mother and the glade", books: ["lyra", "eldoria"] }),
    );
    expect(named.books).toEqual(["eldoria", "lyra"]);
    expect(named.fired.map((f: { book?: string }) => f.book).sort()).toEqual(["eldoria", "lyra"]);
    const character = await json(await call("POST", "/api/try", { text: "mother", char: "Lyra" }));
    expect(character.context).toContain("LYRA-BOOK");
    const none = await json(await call("POST", "/api/try", { text: "mother" }));
    expect(none.context ?? "").not.toContain("LYRA-BOOK");
    const unknown = await call("POST", "/api/try", { text: "mother", books: ["atlantis"] });
    expect(unknown.status).toBe(404);
  });
});

describe("POST /api/explain of a conversation", () => {
  test("its next turn reads the books its last turn read; its ledger holds a card of a book by its id", async () => {
    await store.commitTurn("c-lyra", {
      turn: 1,
      now: 1,
      injections: [{ id: "lyra:people/Mother", version: "1:1", turn: 1 }],
    });
    await store.recordTurn(turnRecord("c-lyra", 1, [], { books: ["eldoria", "lyra"] }));
    const body = await json(
      await call("POST", "/api/explain", { text: "mother and the glade", conversation: "c-lyra" }),
    );
    expect(body.books).toEqual(["eldoria", "lyra"]);
    expect(body.injected).toEqual(["Glade"]);
    const mother = body.cards.find((c: { id: string }) => c.id === "lyra:people/Mother");
    expect(mother).toMatchObject({ book: "lyra", verdict: "in_context" });
  });
});

describe.skipIf(!haveRealFixture("api: import into a book", "st-card-Seraphina.png"))(
  "POST /api/import?book=auto",
  () => {
    test("a character card goes into its character's own book", async () => {
      const png = new Uint8Array(fs.readFileSync(path.join(REAL_FIXTURES, "st-card-Seraphina.png")));
      const res = await call("POST", "/api/import?book=auto&filename=Seraphina.png", png, {
        "content-type": "image/png",
      });
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.into).toMatchObject({ name: "seraphina", character: "Seraphina", made: true });
      const list = await json(await call("GET", "/api/cards?book=seraphina"));
      expect(list.cards).toHaveLength(4);
    });
  },
);
