// The MCP tools in process: the SDK's own Client talks to createMcpServer over a linked in-memory
// transport, so each case runs the real schemas, handlers and vault code without spawning the binary.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ERROR_META } from "../../src/mcp/_result.ts";
import { createMcpServer } from "../../src/mcp/index.ts";
import { openVault } from "../../src/vault/index.ts";
import { vaultFiles } from "../support/card-vault.ts";
import { makeVault, removeDir } from "../support/vault.ts";

interface Connection {
  client: Client;
  close: () => Promise<void>;
}

async function connect(root: string): Promise<Connection> {
  const server = createMcpServer(openVault(root), { version: "test" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "lorecards-test", version: "0" });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  const text = first?.type === "text" ? first.text : "";
  // biome-ignore lint/suspicious/noExplicitAny: the shape is what each test asserts, field by field.
  const data = result.structuredContent as Record<string, any>;
  return { isError: result.isError === true, text, data, meta: result._meta };
}

describe("the tools as a model sees them", () => {
  let root = "";
  let conn: Connection;
  beforeAll(async () => {
    root = makeVault();
    fs.writeFileSync(
      path.join(root, "kinds.yaml"),
      "sections: { people: [qui, relation, recent, impression] }\nprivate_sections: [correspondance]\n",
    );
    conn = await connect(root);
  });
  afterAll(async () => {
    await conn.close();
    removeDir(root);
  });

  test("the kinds, their sections and the private sections come from the vault's kinds.yaml", async () => {
    const { tools } = await conn.client.listTools();
    const write = tools.find((t) => t.name === "write_card")!;
    const props = write.inputSchema.properties as Record<string, { description?: string }>;
    expect(props.kind!.description).toContain("people, event, place, thing, slang, entry");
    expect(props.sections!.description).toContain(
      "people (sections qui, relation, recent, impression; recent",
    );
    expect(props.sections!.description).toContain(
      "event (sections when, who, what, stance, followup; no recent",
    );
    expect(props.sections!.description).toContain('"correspondance" is private');
    expect(props.sections!.description).not.toContain("correspondence");
    expect(write.description).toContain("people, place, thing cards have one");
    expect(props.keywords!.description).toMatch(/\[.*"Alice".*\]/);
  });

  test.each([
    [
      "write_card",
      { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    ],
    ["read_card", { readOnlyHint: true, openWorldHint: false }],
    ["list_cards", { readOnlyHint: true, openWorldHint: false }],
    ["set_lore", { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
  ])("%s carries accurate annotations and an output schema", async (name, annotations) => {
    const tool = (await conn.client.listTools()).tools.find((t) => t.name === name)!;
    expect(tool.annotations).toEqual(annotations);
    expect(tool.outputSchema?.type).toBe("object");
  });
});

describe("calling the tools", () => {
  let root = "";
  let conn: Connection;
  beforeEach(async () => {
    root = makeVault();
    conn = await connect(root);
  });
  afterEach(async () => {
    await conn.close();
    removeDir(root);
  });

  test("every answer carries structured content, and its text is the same JSON", async () => {
    for (const [tool, args] of [
      ["list_cards", {}],
      ["read_card", { name: "Alice" }],
      ["write_card", { mode: "create", kind: "thing", title: "the red kite" }],
    ] as const) {
      const res = await call(conn.client, tool, args);
      expect(res.isError).toBe(false);
      expect(JSON.parse(res.text)).toEqual(res.data);
    }
  });

  test.each([
    ["its title, in any case", { name: "THE CORNER CAFE" }],
    ["its key", { name: "the corner cafe" }],
    ["kind/key", { name: "place/the corner cafe" }],
    ["directory/key", { name: "places/the corner cafe" }],
    ["its key within a kind", { name: "the corner cafe", kind: "place" }],
    ["its title within a kind given by directory", { name: "The Corner Cafe", kind: "places" }],
  ])("read_card finds a card by %s", async (_, args) => {
    const res = await call(conn.client, "read_card", args);
    expect(res.isError).toBe(false);
    expect(res.data).toMatchObject({ kind: "place", key: "the corner cafe", recent_section: "recent" });
  });

  test("read_card of a card in another kind than the one asked is not found", async () => {
    const res = await call(conn.client, "read_card", { name: "Alice", kind: "place" });
    expect(res).toMatchObject({ isError: true });
    expect(res.text).toStartWith("not_found:");
  });

  test("a name two cards answer to alike is a conflict naming both, for read_card and update_recent", async () => {
    fs.mkdirSync(path.join(root, "Lore"));
    fs.mkdirSync(path.join(root, "Characters"));
    fs.writeFileSync(path.join(root, "Lore", "Ash.md"), "Grey residue.\n");
    fs.writeFileSync(path.join(root, "Characters", "Ash.md"), "A boy.\n");
    const said = 'conflict: "Ash" names 2 cards: entry/Characters/Ash, entry/Lore/Ash; name one of them so';
    expect(await call(conn.client, "read_card", { name: "Ash" })).toMatchObject({
      isError: true,
      text: said,
    });
    const update = { mode: "update_recent", name: "Ash", text: "Seen at the docks." };
    expect(await call(conn.client, "write_card", update)).toMatchObject({ isError: true, text: said });
    expect(fs.readFileSync(path.join(root, "Lore", "Ash.md"), "utf8")).toBe("Grey residue.\n");
    expect(fs.readFileSync(path.join(root, "Characters", "Ash.md"), "utf8")).toBe("A boy.\n");
  });

  test("read_card with an as_of that is no point in time says so by the tool's own name for it", async () => {
    // It said "--as-of takes …", the command line's flag, to an agent that never saw one.
    const res = await call(conn.client, "read_card", { name: "Alice", as_of: "last week" });
    expect(res.isError).toBe(true);
    expect(res.text).toBe(
      'invalid_input: as_of takes a version number or a date and time (2025-06-01, 2025-06-01T14:30, …), got "last week"',
    );
  });

  test("read_card shows private sections, marked private, next to the public ones", async () => {
    fs.writeFileSync(
      path.join(root, "people", "Bea.md"),
      "---\ntitle: Bea\nemails: [bea@example.org]\n---\n## who\nA penpal.\n\n## correspondence\nDraft: dear Bea.\n",
    );
    const res = await call(conn.client, "read_card", { name: "bea" });
    expect(res.data.frontmatter).toEqual({ title: "Bea", emails: ["bea@example.org"] });
    expect(res.data.sections).toEqual([
      { heading: "who", text: "A penpal.\n\n", private: false },
      { heading: "correspondence", text: "Draft: dear Bea.\n", private: true },
    ]);
  });

  test("update_recent on a CRLF card with a BOM rewrites only the recent text, in CRLF", async () => {
    const file = path.join(root, "people", "Win.md");
    const before =
      "\uFEFF---\r\ntitle: Win\r\nkeywords: [Win]\r\n---\r\n## who\r\nA Windows user.\r\n\r\n## recent\r\nOld.\r\n\r\n" +
      "## impression\r\nCalm.\r\n";
    fs.writeFileSync(file, before);
    const res = await call(conn.client, "write_card", {
      mode: "update_recent",
      name: "Win",
      text: "Moved house.\nNew job.",
    });
    expect(res.isError).toBe(false);
    expect(fs.readFileSync(file, "utf8")).toBe(before.replace("Old.", "Moved house.\r\nNew job."));
  });

  test("update_recent appends the recent section to a card that lacks one, leaving the rest as it was", async () => {
    const file = path.join(root, "people", "Alice.md");
    const before = fs.readFileSync(file, "utf8");
    await call(conn.client, "write_card", { mode: "update_recent", name: "alice", text: "Back from Lyon." });
    expect(fs.readFileSync(file, "utf8")).toBe(`${before}\n## recent\nBack from Lyon.\n`);
  });

  test("update_recent on a kind without a recent section says which kinds have one and writes nothing", async () => {
    const before = vaultFiles(root);
    const res = await call(conn.client, "write_card", {
      mode: "update_recent",
      name: "the Friday deploy",
      text: "Moved to Thursday.",
    });
    expect(res.isError).toBe(true);
    expect(res.text).toContain("event cards have no recent section");
    expect(res.text).toContain("people, place, thing");
    expect(vaultFiles(root)).toEqual(before);
  });

  test("create writes a private section into the file, and read_card marks it private", async () => {
    await call(conn.client, "write_card", {
      mode: "create",
      kind: "people",
      title: "Cy",
      sections: [
        { heading: "who", text: "A cousin." },
        { heading: "correspondence", text: "Letter draft." },
      ],
    });
    const read = await call(conn.client, "read_card", { name: "people/Cy" });
    expect(read.data.sections.map((s: { private: boolean }) => s.private)).toEqual([false, true]);
  });

  test.each([
    ["an unknown kind", { mode: "create", kind: "planet", title: "Mars" }, "unknown_kind"],
    ["an empty title", { mode: "create", kind: "people", title: "  " }, "title"],
    ["a title that is a path", { mode: "create", kind: "people", title: "../../escape" }, "invalid_key"],
    ["a key that is a path", { mode: "create", kind: "people", title: "X", key: "a/b" }, "invalid_key"],
    ["a Windows device name", { mode: "create", kind: "people", title: "CON" }, "invalid_key"],
    [
      "a device-name title, suggesting a key to pass",
      { mode: "create", kind: "people", title: "aux.txt" },
      'pass a key (the file name) instead, for example "aux_.txt"',
    ],
    [
      "a title with a right-to-left override",
      { mode: "create", kind: "people", title: "invoice\u202etxt.exe" },
      "title holds U+202E (a bidirectional control) at character 8",
    ],
    ["a 201-character title", { mode: "create", kind: "people", title: "t".repeat(201) }, "200"],
    [
      "a 101-character keyword",
      { mode: "create", kind: "people", title: "K", keywords: ["k".repeat(101)] },
      "101 characters long; the limit is 100",
    ],
    ["a title already taken in another kind", { mode: "create", kind: "thing", title: "ALICE" }, "conflict"],
    ["a key already taken", { mode: "create", kind: "people", title: "Al", key: "alice" }, "conflict"],
    [
      "the same heading twice",
      {
        mode: "create",
        kind: "people",
        title: "Twice",
        sections: [
          { heading: "who", text: "a" },
          { heading: "Who", text: "b" },
        ],
      },
      "given twice",
    ],
    [
      "a heading inside section text",
      { mode: "create", kind: "people", title: "H", sections: [{ heading: "who", text: "a\n## recent\nb" }] },
      "heading",
    ],
    [
      "oversized section text",
      {
        mode: "create",
        kind: "people",
        title: "Big",
        sections: [{ heading: "who", text: "x".repeat(70_000) }],
      },
      "65536",
    ],
    [
      "sections over 256 Ki characters in all, more than the editor could save",
      {
        mode: "create",
        kind: "people",
        title: "Huge",
        sections: Array.from({ length: 5 }, (_, i) => ({ heading: `part ${i}`, text: "x".repeat(60_000) })),
      },
      "hold 300,000 characters in all; the limit is 262,144",
    ],
    [
      "too many keywords",
      { mode: "create", kind: "people", title: "K", keywords: Array(101).fill("k") },
      "100",
    ],
    ["an unknown mode", { mode: "delete", name: "Alice" }, "mode"],
    ["create without a title", { mode: "create", kind: "people" }, "needs a title"],
    [
      "create with update fields",
      { mode: "create", kind: "people", title: "T", text: "x" },
      "does not take text",
    ],
    ["update_recent without text", { mode: "update_recent", name: "Alice" }, "needs the new text"],
    ["update_recent of a missing card", { mode: "update_recent", name: "Nobody", text: "x" }, "not_found"],
    ["update_recent of a path", { mode: "update_recent", name: "people/../../x", text: "x" }, "invalid_key"],
    ["update_recent with a heading", { mode: "update_recent", name: "Alice", text: "## who\nx" }, "heading"],
  ])(
    "write_card refuses %s with a tool error naming the problem, and changes nothing",
    async (_, args, needle) => {
      const before = vaultFiles(root);
      const res = await call(conn.client, "write_card", args);
      expect(res.isError).toBe(true);
      expect(res.text).toContain(needle);
      expect(vaultFiles(root)).toEqual(before);
    },
  );

  test.each([
    ["read_card with an empty name", "read_card", { name: "" }, "name"],
    ["read_card of a missing card", "read_card", { name: "Nobody" }, "not_found"],
    ["read_card in an unknown kind", "read_card", { name: "Alice", kind: "planet" }, "unknown_kind"],
    ["list_cards of an unknown kind", "list_cards", { kind: "planet" }, "unknown_kind"],
    ["list_cards with a zero limit", "list_cards", { limit: 0 }, "limit"],
    ["list_cards with a limit over 1000", "list_cards", { limit: 5000 }, "limit"],
    ["list_cards with a negative offset", "list_cards", { offset: -1 }, "offset"],
  ])("%s is a tool error naming the problem", async (_, tool, args, needle) => {
    const res = await call(conn.client, tool, args);
    expect(res.isError).toBe(true);
    expect(res.text).toContain(needle);
  });

  test.each([
    ["read_card of a missing card", "read_card", { name: "Nobody" }, "not_found"],
    [
      "write_card of a path",
      "write_card",
      { mode: "update_recent", name: "people/../../x", text: "x" },
      "invalid_key",
    ],
  ])("%s carries its code as data beside the text", async (_, tool, args, code) => {
    const res = await call(conn.client, tool, args);
    expect(res.isError).toBe(true);
    expect(res.meta?.[ERROR_META]).toEqual({ code, detail: res.text.slice(`${code}: `.length) });
  });
});

describe("list_cards on a large vault", () => {
  let root = "";
  let conn: Connection;
  beforeAll(async () => {
    root = makeVault([]);
    for (let i = 0; i < 250; i++) {
      const n = String(i).padStart(3, "0");
      fs.writeFileSync(
        path.join(root, "things", `item ${n}.md`),
        `---\nkeywords: [item ${n}]\n---\n## what\nx\n`,
      );
    }
    fs.writeFileSync(
      path.join(root, "people", "Off.md"),
      "---\nenabled: false\ninject: no\naliases: [O]\n---\n",
    );
    conn = await connect(root);
  });
  afterAll(async () => {
    await conn.close();
    removeDir(root);
  });

  test("answers in pages: a default page, then the rest from next_offset", async () => {
    const first = (await call(conn.client, "list_cards", { kind: "thing" })).data;
    expect(first).toMatchObject({ total: 250, offset: 0, count: 200, next_offset: 200 });
    expect(first.cards[0]).toEqual({
      kind: "thing",
      key: "item 000",
      title: "item 000",
      keywords: ["item 000"],
    });
    const rest = (await call(conn.client, "list_cards", { kind: "thing", offset: first.next_offset })).data;
    expect(rest).toMatchObject({ total: 250, offset: 200, count: 50, next_offset: null });
    expect(rest.cards.at(-1).key).toBe("item 249");
  });

  test("limit sets the page size, and an offset past the end is an empty last page", async () => {
    expect((await call(conn.client, "list_cards", { limit: 3 })).data).toMatchObject({
      total: 251,
      count: 3,
      next_offset: 3,
    });
    expect((await call(conn.client, "list_cards", { offset: 900 })).data).toMatchObject({
      total: 251,
      count: 0,
      next_offset: null,
      cards: [],
    });
  });

  test("entries are compact: aliases, enabled and inject appear only when they say something", async () => {
    const { cards } = (await call(conn.client, "list_cards", { kind: "people" })).data;
    expect(cards).toEqual([
      {
        kind: "people",
        key: "Off",
        title: "Off",
        keywords: [],
        aliases: ["O"],
        enabled: false,
        inject: false,
      },
    ]);
  });
});
