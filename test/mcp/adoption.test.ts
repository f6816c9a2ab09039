// Adoption through `read_card`, in process: the SDK's own Client talks to createMcpServer over a linked
// in-memory transport, on a vault whose state.db holds an index recall, as the hook or gateway left it.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../src/mcp/index.ts";
import { openStore, type Store, stateUrl } from "../../src/state/index.ts";
import { openVault } from "../../src/vault/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/**
 * A server on a new vault (or on one of its books, made by `book` before the server starts), a client
 * linked to it, and the vault's own state store.
 */
async function setUp(
  book?: (root: string) => { name: string; root: string },
): Promise<{ root: string; client: Client; store: Store }> {
  const root = makeVault();
  cleanup.push(() => removeDir(root));
  const served = book?.(root);
  const server = createMcpServer(openVault(served?.root ?? root), {
    version: "test",
    ...(served && { book: { name: served.name, vaultRoot: root } }),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "lorecards-test", version: "0" });
  await client.connect(clientSide);
  const store = await openStore(stateUrl(root), { warn: () => {} });
  cleanup.push(async () => {
    await client.close();
    await server.close();
    await store.close();
  });
  return { root, client, store };
}

async function readCard(client: Client, args: Record<string, unknown>) {
  const result = (await client.callTool({ name: "read_card", arguments: args })) as CallToolResult;
  const first = result.content[0];
  // biome-ignore lint/suspicious/noExplicitAny: each test asserts the fields it needs.
  const data = result.structuredContent as Record<string, any> | undefined;
  return { isError: result.isError === true, text: first?.type === "text" ? first.text : "", data };
}

const listed = { session: "hook:S1", query: "q0123456789ab" };

async function withRecall(store: Store): Promise<void> {
  await store.recordRecall({
    ...listed,
    at: Date.UTC(2025, 2, 1),
    surface: "hook",
    cards: ["event/the Friday deploy", "people/Alice"],
  });
}

describe("read_card records adoptions", () => {
  test("the tool takes session and query as optional arguments", async () => {
    const { client } = await setUp();
    const read = (await client.listTools()).tools.find((t) => t.name === "read_card")!;
    expect(Object.keys(read.inputSchema.properties ?? {})).toEqual([
      "name",
      "kind",
      "session",
      "query",
      "as_of",
    ]);
    expect(read.inputSchema.required).toEqual(["name"]);
    expect(read.description).toContain("memory index block");
  });

  test("opening a listed card with the block's ids records it once; the card is read as ever", async () => {
    const { client, store } = await setUp();
    await withRecall(store);
    const first = await readCard(client, { name: "alice", ...listed });
    expect(first.isError).toBe(false);
    expect(first.data).toMatchObject({ kind: "people", key: "Alice" });
    expect(first.data!.adoption).toEqual({ status: "recorded", card: "people/Alice", ...listed });
    const again = await readCard(client, { name: "people/Alice", ...listed });
    expect(again.data!.adoption.status).toBe("repeated");
    const stored = await store.findRecall(listed.session, listed.query);
    expect(Object.keys(stored!.opened)).toEqual(["people/Alice"]);
    expect((await store.cardUsage(0)).cards.map((c) => [c.card, c.recalled, c.opened])).toEqual([
      ["event/the Friday deploy", 1, 0],
      ["people/Alice", 1, 1],
    ]);
  });

  test.each([
    ["a card the index did not list", { name: "the corner cafe", ...listed }, "not_listed"],
    [
      "ids no index was recorded under",
      { name: "Alice", session: "hook:S1", query: "q999999999999" },
      "unknown_query",
    ],
  ])("%s: the card is read, and nothing is counted (%s)", async (_what, args, status) => {
    const { client, store } = await setUp();
    await withRecall(store);
    const got = await readCard(client, args);
    expect(got.isError).toBe(false);
    expect(got.data!.adoption.status).toBe(status);
    expect((await store.findRecall(listed.session, listed.query))!.opened).toEqual({});
  });

  test.each([
    ["session", { name: "Alice", session: "hook:S1" }, "query"],
    ["query", { name: "Alice", query: "q0123456789ab" }, "session"],
  ])("only a %s is refused: the two go together", async (_given, args, missing) => {
    const { client } = await setUp();
    const got = await readCard(client, args);
    expect(got.isError).toBe(true);
    expect(got.text).toStartWith("invalid_input: read_card takes session and query together");
    expect(got.text).toContain(`(${missing === "query" ? "session" : "query"} was given alone)`);
  });

  test("a read without ids answers as before and never opens the state file", async () => {
    const { root, client } = await setUp();
    const got = await readCard(client, { name: "Alice" });
    expect(got.data).not.toHaveProperty("adoption");
    expect(fs.existsSync(path.join(root, ".lorecards", "state.db"))).toBe(false);
  });
});

describe("read_card on a server of one book (`lorecards mcp --book`)", () => {
  // An index block names a book's card as recall does, `book:kind/key`; the adoption goes into the
  // vault's own state, where the hook and the gateway recorded the recall, not into the book's.
  test("records the card by its id in the book, in the vault's own state", async () => {
    const { root, client, store } = await setUp((root) => {
      const bookRoot = path.join(root, "books", "eldoria");
      fs.mkdirSync(path.join(bookRoot, "places"), { recursive: true });
      fs.writeFileSync(
        path.join(bookRoot, "places", "Glade.md"),
        "---\nkeywords: [glade]\n---\n## where\nEast.\n",
      );
      return { name: "eldoria", root: bookRoot };
    });
    await store.recordRecall({
      ...listed,
      at: Date.UTC(2025, 2, 1),
      surface: "hook",
      cards: ["eldoria:place/Glade"],
    });
    const got = await readCard(client, { name: "glade", ...listed });
    expect(got.data!.adoption).toEqual({ status: "recorded", card: "eldoria:place/Glade", ...listed });
    expect(fs.existsSync(path.join(root, "books", "eldoria", ".lorecards", "state.db"))).toBe(false);
  });
});
