/**
 * `lorecards mcp` in a vault with a book, as a novelist found it: a SillyTavern book imported as
 * `sora_eldoria_v10.6.0`, an agent working through MCP. list_cards showed only the vault's own cards,
 * write_card made a second 凯尔 beside the book's (every conversation was sent both), and
 * `books/<book>/雷恩` was read as an `entry` that update_recent refused. Now the server serves the
 * vault's own cards or, with `--book`, one book, as the CLI's `--book` does, and says which book holds
 * what it does not. The official SDK client drives the compiled binary over stdio and streamable HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { vaultFiles } from "../support/card-vault.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const BOOK = "sora_eldoria_v10.6.0";
const ENV = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" };
let bin = "";
let vault = "";
let book = "";

beforeAll(async () => {
  bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  vault = makeVault();
  book = path.join(vault, "books", BOOK);
  fs.mkdirSync(path.join(book, "people"), { recursive: true });
  fs.writeFileSync(
    path.join(book, "凯尔.md"),
    "---\ntitle: 凯尔\nkeywords: [凯尔]\n---\nA knight of Eldoria.\n",
  );
  fs.writeFileSync(
    path.join(book, "people", "雷恩.md"),
    "---\nkeywords: [雷恩]\n---\n## who\nThe archivist.\n\n## recent\nLost the key.\n",
  );
  fs.writeFileSync(path.join(book, "book.yaml"), "title: Sora\n");
});
afterAll(() => removeDir(vault));

async function stdio(...flags: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--vault", vault, ...flags],
    env: ENV,
  });
  const client = new Client({ name: "lorecards-test", version: "0" });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = r.content[0];
  // biome-ignore lint/suspicious/noExplicitAny: each test asserts the fields it reads.
  const data = r.structuredContent as any;
  return { isError: r.isError === true, text: first?.type === "text" ? first.text : "", data };
}

describe("with no --book: the vault's own cards, and what its book holds said", () => {
  let client: Client;
  beforeAll(async () => {
    client = await stdio();
  });
  afterAll(() => client.close());

  test("list_cards lists the vault's own cards, then the book with its card count", async () => {
    const { data } = await call(client, "list_cards", {});
    expect(data.total).toBe(5);
    expect(data.books).toEqual([{ name: BOOK, title: "Sora", characters: [], active: "auto", cards: 2 }]);
  });

  test("write_card create of a name the book holds is refused, naming the book and the flag, and writes nothing", async () => {
    const before = vaultFiles(vault);
    const r = await call(client, "write_card", { mode: "create", kind: "entry", title: "凯尔" });
    expect(r.isError).toBe(true);
    expect(r.text).toBe(
      `conflict: a card named "凯尔" already exists in the book ${BOOK} (entry/凯尔), read beside these cards by default: lorecards mcp --book ${BOOK} works on it there, lorecards mcp --book main makes this one anyway`,
    );
    expect(vaultFiles(vault)).toEqual(before);
  });

  test.each([
    ["read_card", "read_card", { name: "雷恩" }, "one"],
    ["update_recent", "write_card", { mode: "update_recent", name: "雷恩", text: "Found it." }, "one"],
    ["read_card by its path", "read_card", { name: `books/${BOOK}/people/雷恩` }, 'it as "people/雷恩"'],
    [
      "update_recent by its path",
      "write_card",
      { mode: "update_recent", name: `books/${BOOK}/people/雷恩`, text: "Found it." },
      'it as "people/雷恩"',
    ],
  ])(
    "%s of a card only the book holds is not found, naming the book and the flag",
    async (_what, tool, args, has) => {
      const before = vaultFiles(vault);
      const r = await call(client, tool, args);
      expect(r.isError).toBe(true);
      expect(r.text).toBe(
        `not_found: no card named "${args.name}" (the book ${BOOK} has ${has}: lorecards mcp --book ${BOOK})`,
      );
      expect(vaultFiles(vault)).toEqual(before);
    },
  );
});

describe("with --book: that book's cards, the state the vault's own", () => {
  let client: Client;
  beforeAll(async () => {
    client = await stdio("--book", BOOK);
  });
  afterAll(() => client.close());

  test("list_cards lists the book's cards and no other book", async () => {
    const { data } = await call(client, "list_cards", {});
    expect(data.cards.map((c: { kind: string; key: string }) => `${c.kind}/${c.key}`)).toEqual([
      "entry/凯尔",
      "people/雷恩",
    ]);
    expect(data.books).toBeUndefined();
  });

  test("read_card gives the card's kind in the book, and update_recent writes its recent section there", async () => {
    expect((await call(client, "read_card", { name: "雷恩" })).data).toMatchObject({
      kind: "people",
      key: "雷恩",
    });
    const r = await call(client, "write_card", { mode: "update_recent", name: "雷恩", text: "Found it." });
    expect([r.isError, r.data]).toMatchObject([false, { status: "updated", kind: "people", key: "雷恩" }]);
    expect(fs.readFileSync(path.join(book, "people", "雷恩.md"), "utf8")).toContain("## recent\nFound it.\n");
  });

  test("write_card create makes the card in the book's folder", async () => {
    const r = await call(client, "write_card", {
      mode: "create",
      kind: "place",
      title: "Eldoria Gate",
      keywords: ["gate"],
    });
    expect(r.isError).toBe(false);
    expect(fs.existsSync(path.join(book, "places", "Eldoria Gate.md"))).toBe(true);
    expect(fs.existsSync(path.join(vault, "places", "Eldoria Gate.md"))).toBe(false);
  });

  test("set_lore is kept in the vault's own .lorecards/, none in the book's", async () => {
    expect((await call(client, "set_lore", { session: "s-1", lore: "none" })).isError).toBe(false);
    expect(fs.existsSync(path.join(vault, ".lorecards", "state.db"))).toBe(true);
    expect(fs.readdirSync(path.join(book, ".lorecards")).filter((f) => /state|style/.test(f))).toEqual([]);
  });
});

test("mcp --book over streamable HTTP serves that book and says so", async () => {
  const proc = Bun.spawn([bin, "mcp", "--vault", vault, "--book", BOOK, "--http", "--port", "0", "--json"], {
    stdout: "pipe",
    stderr: "pipe",
    env: ENV,
  });
  try {
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    let seen = "";
    while (!seen.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`mcp --http exited: ${seen}`);
      seen += new TextDecoder().decode(value);
    }
    const ready = JSON.parse(seen);
    expect(ready).toMatchObject({ vault: fs.realpathSync(vault), book: BOOK });
    const client = new Client({ name: "lorecards-test", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(ready.url)));
    const { data } = await call(client, "read_card", { name: "凯尔" });
    expect(data).toMatchObject({ kind: "entry", key: "凯尔", preamble: "A knight of Eldoria.\n" });
    await client.close();
  } finally {
    proc.kill();
    await proc.exited;
  }
});

test("mcp --book with a book the vault has not refuses to start, naming its books", async () => {
  const r = await runBinary(["mcp", "--vault", vault, "--book", "nope"]);
  expect(r.code).toBe(3);
  expect(r.stderr).toContain(`--book: no book "nope" in`);
  expect(r.stderr).toContain(`(its books: main, ${BOOK})`);
});
