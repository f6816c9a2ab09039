// `lorecards mcp` driven by the official SDK Client, over stdio and over streamable HTTP, against the
// compiled binary (LORECARDS_BIN overrides which one; otherwise dist/lorecards, built when missing or stale).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ensureBinary } from "../support/binary.ts";
import { vaultFiles } from "../support/card-vault.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let bin = "";
beforeAll(async () => {
  bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
});

function textOf(result: unknown): string {
  const r = result as CallToolResult;
  const first = r.content[0];
  return first && first.type === "text" ? first.text : "";
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { isError: result.isError === true, text: textOf(result) };
}

async function stdioClient(vault: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--vault", vault],
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const client = new Client({ name: "lorecards-test", version: "0" });
  await client.connect(transport);
  return { client, stderr: () => err };
}

/** Every tool, run the same way over either transport. */
function toolSuite(connect: (vault: string) => Promise<Client>) {
  let vault = "";
  let client: Client;
  beforeAll(async () => {
    vault = makeVault();
    client = await connect(vault);
  });
  afterAll(async () => {
    await client.close();
    removeDir(vault);
  });

  test("the server offers write_card, read_card, list_cards, set_lore and style memory's three, with input schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "list_cards",
      "read_card",
      "set_lore",
      "style_admin",
      "style_brief",
      "style_observe",
      "write_card",
    ]);
    const write = tools.find((t) => t.name === "write_card")!;
    expect(write.inputSchema.type).toBe("object");
    expect(Object.keys(write.inputSchema.properties ?? {})).toContain("mode");
    expect(write.description).toContain("update_recent");
  });

  test("write_card create makes a new card file that read_card and list_cards then show", async () => {
    const created = await call(client, "write_card", {
      mode: "create",
      kind: "people",
      title: "Bob",
      keywords: ["Bob", "the drummer"],
      aliases: ["Bobby"],
      sections: [
        { heading: "who", text: "Plays drums in the Thursday band." },
        { heading: "recent", text: "Bought a new snare." },
        { heading: "correspondence", text: "Draft letter: thanks for the gig." },
      ],
    });
    expect(created.isError).toBe(false);
    expect(JSON.parse(created.text)).toMatchObject({ status: "created", kind: "people", key: "Bob" });
    const file = fs.readFileSync(path.join(vault, "people", "Bob.md"), "utf8");
    expect(file).toContain("## who\nPlays drums in the Thursday band.\n");

    const read = JSON.parse((await call(client, "read_card", { name: "bob" })).text);
    expect(read.frontmatter).toMatchObject({
      title: "Bob",
      keywords: ["Bob", "the drummer"],
      aliases: ["Bobby"],
    });
    expect(read.sections).toEqual([
      { heading: "who", text: "Plays drums in the Thursday band.\n\n", private: false },
      { heading: "recent", text: "Bought a new snare.\n\n", private: false },
      { heading: "correspondence", text: "Draft letter: thanks for the gig.\n", private: true },
    ]);

    const list = JSON.parse((await call(client, "list_cards", { kind: "people" })).text);
    expect(list.cards.map((c: { key: string }) => c.key).sort()).toEqual(["Alice", "Bob", "小林"]);
    expect(list.cards.find((c: { key: string }) => c.key === "Bob").keywords).toEqual(["Bob", "the drummer"]);
    const all = JSON.parse((await call(client, "list_cards", {})).text);
    expect(all.count).toBe(6);
  });

  test("write_card update_recent replaces only the recent section, every other byte unchanged", async () => {
    const file = path.join(vault, "people", "Carol.md");
    const before =
      "---\n# a comment the user wrote\ntitle: Carol\nkeywords: [Carol]   # trailing\nfoo: kept\n---\n" +
      "Intro line.\n\n## who\nA neighbour.\n\n## recent\nOld news.\n\n## impression\nKind.\n";
    fs.writeFileSync(file, before);
    const res = await call(client, "write_card", {
      mode: "update_recent",
      name: "Carol",
      text: "Moved to Lyon.",
    });
    expect(res.isError).toBe(false);
    expect(fs.readFileSync(file, "utf8")).toBe(before.replace("Old news.", "Moved to Lyon."));
  });

  test.each([
    ["an unknown kind", { mode: "create", kind: "planet", title: "Mars" }, "unknown_kind"],
    ["an empty title", { mode: "create", kind: "people", title: "  " }, "title"],
    ["a name escaping the vault", { mode: "create", kind: "people", title: "../../escape" }, "invalid_key"],
    ["a key escaping the vault", { mode: "create", kind: "people", title: "X", key: "../x" }, "invalid_key"],
    ["a taken name", { mode: "create", kind: "thing", title: "alice" }, "conflict"],
    [
      "oversized text",
      {
        mode: "create",
        kind: "people",
        title: "Big",
        sections: [{ heading: "who", text: "x".repeat(70_000) }],
      },
      "65536",
    ],
    [
      "a heading inside section text",
      { mode: "create", kind: "people", title: "H", sections: [{ heading: "who", text: "a\n## recent\nb" }] },
      "heading",
    ],
    ["an unknown mode", { mode: "delete", name: "Alice" }, "mode"],
    ["create without a kind", { mode: "create", title: "Dan" }, "needs a kind"],
    ["update_recent on a missing card", { mode: "update_recent", name: "Nobody", text: "x" }, "not_found"],
    [
      "update_recent on a kind without a recent section",
      { mode: "update_recent", name: "the Friday deploy", text: "x" },
      "no recent section",
    ],
    [
      "update_recent with oversized text",
      { mode: "update_recent", name: "Alice", text: "y".repeat(70_000) },
      "65536",
    ],
    [
      "update_recent with create fields",
      { mode: "update_recent", name: "Alice", text: "x", keywords: ["a"] },
      "does not take keywords",
    ],
  ])("write_card refuses %s with a tool error and changes nothing", async (_, args, needle) => {
    const snapshot = vaultFiles(vault);
    const res = await call(client, "write_card", args);
    expect(res.isError).toBe(true);
    expect(res.text).toContain(needle);
    expect(vaultFiles(vault)).toEqual(snapshot);
  });

  test.each([
    ["read_card of a missing card", "read_card", { name: "Nobody" }, "not_found"],
    ["read_card with a name escaping the vault", "read_card", { name: "../../etc/passwd" }, "invalid_key"],
    ["list_cards of an unknown kind", "list_cards", { kind: "planet" }, "unknown_kind"],
  ])("%s is a tool error naming the problem", async (_, tool, args, needle) => {
    const res = await call(client, tool, args);
    expect(res.isError).toBe(true);
    expect(res.text).toContain(needle);
  });
}

describe("over stdio", () => {
  toolSuite(async (vault) => (await stdioClient(vault)).client);

  test("every line on stdout is a JSON-RPC message", async () => {
    const vault = makeVault();
    try {
      const messages = [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "raw", version: "0" },
          },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_cards", arguments: {} } },
        {
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "read_card", arguments: { name: "missing" } },
        },
      ];
      const proc = Bun.spawn([bin, "mcp", "--vault", vault], {
        stdin: new Blob([messages.map((m) => `${JSON.stringify(m)}\n`).join("")]),
        stdout: "pipe",
        stderr: "pipe",
      });
      const out = await new Response(proc.stdout as ReadableStream).text();
      await proc.exited;
      const lines = out.split("\n").filter((l) => l !== "");
      // JSON-RPC lets answers come in any order.
      expect(lines.map((l) => JSON.parse(l).id).sort()).toEqual([1, 2, 3]);
      for (const l of lines) expect(JSON.parse(l).jsonrpc).toBe("2.0");
    } finally {
      removeDir(vault);
    }
  });

  test("a concurrent MCP write and direct vault write lose nothing", async () => {
    const vault = makeVault();
    try {
      const { client } = await stdioClient(vault);
      // A direct vault write (as the UI or CLI does) racing 10 MCP creates: every card must exist after.
      const { createCard, openVault } = await import("../../src/vault/index.ts");
      const v = openVault(vault);
      const mcpWrites = Array.from({ length: 10 }, (_, i) =>
        call(client, "write_card", { mode: "create", kind: "thing", title: `mcp thing ${i}` }),
      );
      const direct = Array.from({ length: 10 }, (_, i) =>
        createCard(v, {
          kind: "thing",
          key: `direct thing ${i}`,
          frontmatter: { title: `direct thing ${i}` },
          body: "",
        }),
      );
      const recent = call(client, "write_card", {
        mode: "update_recent",
        name: "Alice",
        text: "Concurrent.",
      });
      const results = await Promise.all([...mcpWrites, recent]);
      await Promise.all(direct);
      expect(results.every((r) => !r.isError)).toBe(true);
      const things = fs.readdirSync(path.join(vault, "things")).sort();
      for (let i = 0; i < 10; i++) {
        expect(things).toContain(`mcp thing ${i}.md`);
        expect(things).toContain(`direct thing ${i}.md`);
      }
      expect(fs.readFileSync(path.join(vault, "people", "Alice.md"), "utf8")).toContain(
        "## recent\nConcurrent.\n",
      );
      await client.close();
    } finally {
      removeDir(vault);
    }
  });
});

describe("over streamable HTTP", () => {
  const servers: Bun.Subprocess[] = [];
  afterAll(() => {
    for (const s of servers) s.kill();
  });

  async function startHttp(
    vault: string,
    extra: string[] = [],
  ): Promise<{ url: string; proc: Bun.Subprocess }> {
    const proc = Bun.spawn([bin, "mcp", "--vault", vault, "--http", "--port", "0", ...extra], {
      stdout: "pipe",
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
    });
    servers.push(proc);
    const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
    let seen = "";
    while (!/http:\/\/\S+\/mcp/.test(seen)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`mcp --http exited: ${seen}`);
      seen += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    return { url: /http:\/\/\S+\/mcp/.exec(seen)![0], proc };
  }

  toolSuite(async (vault) => {
    const { url } = await startHttp(vault);
    const client = new Client({ name: "lorecards-test", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  });

  test("with --token, a client without it is refused and one with it gets through", async () => {
    const vault = makeVault();
    try {
      const { url } = await startHttp(vault, ["--token", "s3cret-0123456789"]);
      const anonymous = new Client({ name: "t", version: "0" });
      await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow();
      const variants: Record<string, string>[] = [
        { authorization: "Bearer s3cret-0123456789" },
        { "x-lorecards-token": "s3cret-0123456789" },
      ];
      for (const headers of variants) {
        const client = new Client({ name: "t", version: "0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
        expect((await client.listTools()).tools).toHaveLength(7);
        await client.close();
      }
    } finally {
      removeDir(vault);
    }
  });

  test.each([
    ["a foreign Host header", { host: "evil.example" }, 403],
    ["a cross-site Origin", { origin: "https://evil.example" }, 403],
  ])("a request with %s is refused", async (_, headers, status) => {
    const vault = makeVault();
    try {
      const { url } = await startHttp(vault);
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(res.status).toBe(status);
    } finally {
      removeDir(vault);
    }
  });

  test("listening beyond localhost without --token refuses to start", async () => {
    const vault = makeVault();
    try {
      const proc = Bun.spawn([bin, "mcp", "--vault", vault, "--http", "--host", "0.0.0.0", "--port", "0"], {
        stdout: "pipe",
        stderr: "pipe",
      });
      const code = await proc.exited;
      expect(code).not.toBe(0);
      expect(await new Response(proc.stderr as ReadableStream).text()).toContain("--token");
    } finally {
      removeDir(vault);
    }
  });
});
