// Finding cards across the vault over HTTP in-process (api/_find.ts, api/_shelf.ts): search of card text
// with a snippet, never of private sections; the facts the list sorts by; a card's links both ways;
// and what the budget holds before anyone speaks.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createApi } from "../../src/api/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { apiRequest } from "../support/api-request.ts";
import { CARDS, makeVault, removeDir } from "../support/vault.ts";

let root: string;
let engine: Engine;
let handle: (req: Request) => Promise<Response>;

const EXTRA = [
  {
    dir: "people",
    key: "Bob",
    keywords: ["bob"],
    body: "## who\nAlice's neighbour in Lyon; plays the cello.\n## correspondence\nOwes me a STRASSE map.\n",
    extra: "refs: [Alice]\n",
  },
  { dir: "slang", key: "Rule zero", keywords: [], body: "Always be kind.\n", extra: "context: always\n" },
];

beforeEach(async () => {
  root = makeVault([...CARDS, ...EXTRA]);
  engine = await openEngine(root, { segmenter: false });
  handle = createApi({
    engine,
    hosts: ["127.0.0.1"],
    port: 8766,
    now: () => new Date("2026-07-01T12:00:00Z"),
  });
});
afterEach(() => {
  engine.close();
  removeDir(root);
});

async function get(url: string) {
  const res = await handle(apiRequest("GET", url));
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe("GET /api/search", () => {
  test.each([
    ["cello", ["people/Bob"]],
    ["LYON", ["people/Alice", "people/Bob"]],
    ["lyon cello", ["people/Bob"]],
    ["opens at seven", ["place/the corner cafe"]],
    ["osaka", ["people/小林"]],
    ["kobayashi", ["people/小林"]],
    ["strasse", []],
    ["", []],
  ])("%j finds %j", async (q, cards) => {
    expect((await get(`/api/search?q=${encodeURIComponent(q)}`)).cards).toEqual(cards);
  });

  test("a card found in its text comes with a snippet of it from just before the word", async () => {
    const { snippets } = (await get("/api/search?q=cello")) as { snippets: Record<string, string> };
    // A list row shows the start of a line: the word is near it.
    expect(snippets["people/Bob"]).toBe("…; plays the cello.");
  });

  test("a card saved since the last search is searched as it is now", async () => {
    await get("/api/search?q=cello");
    const file = path.join(root, "people", "Alice.md");
    // Saved as an editor saves (a temp file renamed over the card): its folder's mtime moves, so the
    // next search sees it however long ago the last one looked.
    fs.writeFileSync(`${file}.tmp`, "---\nkeywords: [alice]\n---\n## who\nNow plays the cello too.\n");
    fs.renameSync(`${file}.tmp`, file);
    expect((await get("/api/search?q=cello")).cards).toEqual(["people/Alice", "people/Bob"]);
  });
});

describe("GET /api/facts", () => {
  test("each card's size in tokens, how often it fired in 30 days, and the book it came from", async () => {
    await handle(
      apiRequest(
        "POST",
        "/api/import?kind=thing&filename=inn.json",
        JSON.stringify({ entries: { 0: { key: ["Quill"], comment: "Quill", content: "The inn's cat." } } }),
        {
          "content-type": "application/octet-stream",
        },
      ),
    );
    const hit = (time: string) => ({
      time,
      source: "gateway",
      keys: ["Alice"],
      words: ["alice"],
      message: "",
    });
    fs.mkdirSync(path.join(root, ".lorecards"), { recursive: true });
    const lines = [hit("2026-05-01T00:00:00Z"), hit("2026-06-20T00:00:00Z"), hit("2026-06-30T00:00:00Z")];
    fs.writeFileSync(
      path.join(root, ".lorecards", "hits.jsonl"),
      lines.map((l) => `${JSON.stringify(l)}\n`).join(""),
    );
    const { cards, books } = (await get("/api/facts")) as {
      cards: Record<
        string,
        { tokens: number; fired: number; last_fired: string | null; book: string | null }
      >;
      books: string[];
    };
    expect(cards["people/Alice"]).toMatchObject({ fired: 2, last_fired: "2026-06-30T00:00:00Z", book: null });
    expect(cards["people/Alice"]!.tokens).toBeGreaterThan(5);
    expect(cards["thing/Quill"]).toMatchObject({ fired: 0, book: "inn.json" });
    expect(books).toEqual(["inn.json"]);
  });
});

describe("GET /api/cards/{kind}/{key}/links", () => {
  test("the cards it names, the cards naming it, what its text reaches and who mentions it", async () => {
    const alice = (await get("/api/cards/people/Alice/links")) as Record<string, { key: string }[]>;
    expect(alice.named_by!.map((c) => c.key)).toEqual(["Bob"]);
    expect(alice.mentioned_by!.map((c) => c.key)).toEqual(["Bob"]);
    const bob = (await get("/api/cards/people/Bob/links")) as Record<string, { key: string }[]>;
    expect(bob.names!.map((c) => c.key)).toEqual(["Alice"]);
    expect(bob.reaches!.map((c) => c.key)).toEqual(["Alice"]);
    expect(bob.named_by).toEqual([]);
  });
});

describe("GET /api/budget", () => {
  test("always-on cards that send more than 4,000 tokens a turn are large", async () => {
    const long = "A long rule. ".repeat(1300);
    fs.writeFileSync(path.join(root, "slang", "Rule one.md"), `---\ncontext: always\n---\n${long}\n`);
    const { always } = (await get("/api/budget")) as { always: { large: boolean; tokens: number } };
    expect(always.tokens).toBeGreaterThan(4000);
    expect(always.large).toBe(true);
  });

  test("the budget, and the always-on cards with their size and whether they get in", async () => {
    const budget = await get("/api/budget");
    expect(budget).toMatchObject({
      budget: 800,
      budget_tokens: null,
      always: {
        cards: [{ key: "Rule zero", chars: expect.any(Number), tokens: 4, in_budget: true }],
        left_out: 0,
        large: false,
      },
    });
  });
});
