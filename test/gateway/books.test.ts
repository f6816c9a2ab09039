/**
 * The gateway over a vault of books (docs/BOOKS.md): a conversation reads the books its base URL or
 * header names, else its character's (named by its system prompt), the unbound books and the vault's
 * own cards; the prefix never reaches the upstream; replay and dedupe work across the books, and the
 * turn record says which books a turn read.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { openStore, stateUrl } from "../../src/state/index.ts";
import { type Msg, openaiBody } from "../support/bodies.ts";
import { gatewaySuite } from "../support/gateway.ts";

const suite = gatewaySuite();

function card(root: string, rel: string, keywords: string, body: string, extra = ""): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `---\nkeywords: [${keywords}]\n${extra}---\n${body}\n`);
}

async function setup() {
  const made = await suite.setup();
  const root = made.vault;
  card(root, "books/eldoria/places/Glade.md", "glade", "WORLD: the glade.");
  card(root, "books/seraphina/people/Mother.md", "mother", "SERAPHINA-BOOK: her mother.");
  card(root, "books/lyra/people/Mother.md", "mother", "LYRA-BOOK: her mother.");
  card(root, "books/lyra/Vow.md", "vow", "LYRA-ALWAYS: Lyra keeps her vow.", "context: always\n");
  fs.writeFileSync(path.join(root, "books/seraphina/book.yaml"), "character: Seraphina\n");
  fs.writeFileSync(path.join(root, "books/lyra/book.yaml"), "character: Lyra\n");
  return made;
}

const sent = () => suite.upstream().received.at(-1)!;

describe("a gateway over a vault of books", () => {
  test("the character the system prompt names brings her book; the other character's never comes", async () => {
    const { h } = await setup();
    const body = openaiBody({
      system: "Write Seraphina's next reply in a fictional chat between Seraphina and Ann.",
      messages: [{ role: "user", content: "How is your mother? The glade looks lovely." }],
    });
    expect((await h.send("/v1/chat/completions", body)).status).toBe(200);
    expect(sent().body).toContain("SERAPHINA-BOOK");
    expect(sent().body).toContain("WORLD: the glade");
    expect(sent().body).not.toContain("LYRA");
  });

  test("a base URL naming books reads exactly those, and the upstream sees the plain path", async () => {
    const { h } = await setup();
    const body = openaiBody({ messages: [{ role: "user", content: "mother and the glade, and Alice" }] });
    const res = await h.send("/books/lyra+Eldoria/v1/chat/completions", body);
    expect(res.status).toBe(200);
    expect(sent().path).toBe("/v1/chat/completions");
    expect(sent().body).toContain("LYRA-BOOK");
    expect(sent().body).toContain("LYRA-ALWAYS");
    expect(sent().body).toContain("WORLD");
    // The vault's own cards are a book too: not named, not read.
    expect(sent().body).not.toContain("sister");
  });

  test("the X-Lorecards-Books header names them as the base URL does, and wins over the system prompt", async () => {
    const { h } = await setup();
    const body = openaiBody({
      system: "You are Seraphina.",
      messages: [{ role: "user", content: "How is your mother?" }],
    });
    await h.send("/v1/chat/completions", body, { "x-lorecards-books": "lyra" });
    expect(sent().body).toContain("LYRA-BOOK");
    expect(sent().body).not.toContain("SERAPHINA-BOOK");
  });

  test("a book the vault does not have is said once and left out; the request still gets the others", async () => {
    const { h } = await setup();
    const body = openaiBody({ messages: [{ role: "user", content: "the glade" }] });
    await h.send("/books/eldoria+atlantis/v1/chat/completions", body);
    await h.send("/books/eldoria+atlantis/v1/chat/completions", body);
    expect(sent().body).toContain("WORLD");
    expect(h.warnings.filter((w) => w.includes('"atlantis"'))).toHaveLength(1);
  });

  test("across books a card goes in once and its block is replayed; the turn record names the books read", async () => {
    const { h, vault } = await setup();
    const system = "You are Lyra, a bard.";
    const messages: Msg[] = [{ role: "user", content: "Tell me of your mother." }];
    await h.send("/v1/chat/completions", openaiBody({ system, messages }));
    const first = sent().body;
    expect(first).toContain("LYRA-BOOK");
    messages.push({ role: "assistant", content: "She sang." }, { role: "user", content: "And the glade?" });
    await h.send("/v1/chat/completions", openaiBody({ system, messages }));
    const second = sent().body;
    // The first turn's block is in front of the same message, byte for byte; the card is not sent again.
    expect(second.split("LYRA-BOOK").length - 1).toBe(1);
    expect(second).toContain("WORLD");
    const store = await openStore(stateUrl(vault));
    try {
      const [conversation] = await store.conversations(1);
      const turns = await store.turns(conversation!.id, 10);
      expect(turns.map((t) => t.books)).toEqual([
        ["main", "eldoria", "lyra"],
        ["main", "eldoria", "lyra"],
      ]);
      expect(turns[0]!.blocks.flatMap((b) => b.cards)).toContain("lyra:people/Mother");
    } finally {
      await store.close();
    }
  });
});
