// Card history through the compiled binary (README "History"): writes made by a real MCP SDK client,
// by the editor's HTTP API (as the page and as another client), and by `lorecards import`, each
// attributed to its writer; `history` lists and shows them, `revert` goes back and is a version of its
// own, and `try --as-of` answers with the vault of then.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { makeVault, removeDir } from "../support/vault.ts";
import { type Editor, startEditor } from "./_writers.ts";

type Version = {
  version: number;
  at: string;
  writer: string;
  action: string;
  size: number | null;
  summary: string;
};

// The first test of a run may build the binary (test/support/binary.ts).

let bin = "";
let vault = "";
let editor: Editor;

beforeAll(async () => {
  bin = await ensureBinary();
  vault = makeVault();
  editor = await startEditor(bin, vault, vault);
});
afterAll(async () => {
  await editor?.kill();
  removeDir(vault);
});

async function cli(...args: string[]) {
  const r = await runBinary([...args, "--vault", vault]);
  return { ...r, json: r.stdout.trim().startsWith("{") ? JSON.parse(r.stdout) : undefined };
}

async function versions(name: string): Promise<Version[]> {
  const r = await cli("history", name, "--json");
  expect(r.code).toBe(0);
  return r.json.versions;
}

async function mcpWrite(args: Record<string, unknown>[]): Promise<void> {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--vault", vault],
    env: { PATH: process.env.PATH ?? "", HOME: vault },
    stderr: "pipe",
  });
  const client = new Client({ name: "lorecards-history-test", version: "0" });
  await client.connect(transport);
  try {
    for (const a of args) {
      const result = (await client.callTool({ name: "write_card", arguments: a })) as CallToolResult;
      expect(result.isError ?? false).toBe(false);
    }
  } finally {
    await client.close();
  }
}

function api(method: string, route: string, body: unknown, asEditor: boolean) {
  return fetch(`${editor.url}${route}`, {
    method,
    headers: {
      "x-lorecards": "1",
      "content-type": "application/json",
      ...(asEditor ? { "x-lorecards-writer": "ui" } : {}),
    },
    body: JSON.stringify(body),
  });
}

const file = (rel: string) => fs.readFileSync(path.join(vault, rel), "utf8");

describe("who wrote each version", () => {
  test("an MCP client's create and recent-section update are the MCP client's", async () => {
    await mcpWrite([
      {
        mode: "create",
        kind: "people",
        title: "Zed",
        keywords: ["zeppelin"],
        sections: [{ heading: "who", text: "Flies airships." }],
      },
      { mode: "update_recent", name: "Zed", text: "Bought a hangar." },
    ]);
    expect((await versions("Zed")).map((v) => [v.action, v.writer])).toEqual([
      ["update", "mcp"],
      ["create", "mcp"],
    ]);
  });

  test("the editor page's save is the editor's, another HTTP client's is the API's", async () => {
    const card = (await (await fetch(`${editor.url}/api/cards/people/Zed`)).json()) as { mtime: string };
    const asPage = await api(
      "PUT",
      "/api/cards/people/Zed",
      { keywords: ["zeppelin", "airship"], mtime: card.mtime },
      true,
    );
    expect(asPage.status).toBe(200);
    const asClient = await api("PUT", "/api/cards/people/Zed", { keywords: ["airship"] }, false);
    expect(asClient.status).toBe(200);
    expect((await versions("Zed")).slice(0, 2).map((v) => [v.writer, v.summary])).toEqual([
      ["api", "keywords (+1 -1 lines)"],
      ["ui", "keywords (+1 -1 lines)"],
    ]);
  });

  test("`lorecards import` is the import's, a forced one with the replaced text before", async () => {
    const book = path.join(vault, "book.json");
    const entry = (content: string) => ({
      entries: { 0: { uid: 0, key: ["dragon"], comment: "Dragon", content } },
    });
    fs.writeFileSync(book, JSON.stringify(entry("A red dragon.")));
    expect((await cli("import", book, "--book", "main")).code).toBe(0);
    fs.writeFileSync(book, JSON.stringify(entry("A blue dragon.")));
    expect((await cli("import", book, "--book", "main", "--force")).code).toBe(0);
    const [newest, first] = await versions("Dragon");
    expect([newest!.writer, newest!.action, first!.writer, first!.summary]).toEqual([
      "import",
      "import",
      "import",
      expect.stringMatching(/^imported, \d+ lines$/),
    ]);
    const shown = await cli("history", "Dragon", "--version", String(newest!.version), "--json");
    expect([shown.json.before, shown.json.after].map((t: string) => t.includes("red"))).toEqual([
      true,
      false,
    ]);
  });
});

describe("history and revert", () => {
  test("history lists versions newest first in text, and shows one as a unified diff", async () => {
    const list = await cli("history", "Zed");
    expect(list.code).toBe(0);
    expect(list.stdout.split("\n")[0]).toBe("people/Zed: 4 versions, newest first (the newest 50 are kept)");
    expect(list.stdout).toMatch(/#\d+ +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}mcp +\d+ B {2}created, \d+ lines/);
    const newest = (await versions("Zed"))[0]!;
    const one = await cli("history", "Zed", "--version", String(newest.version));
    expect(one.stdout).toContain(
      `--- people/Zed before #${newest.version}\n+++ people/Zed after #${newest.version}\n@@`,
    );
    expect(one.stdout).toContain("\n-keywords:");
  });

  test("revert puts the card back byte for byte, is recorded as the command line's, and a second one writes nothing", async () => {
    const [, , mcpUpdate] = await versions("Zed");
    const shown = await cli("history", "Zed", "--version", String(mcpUpdate!.version), "--json");
    const back = await cli("revert", "Zed", "--version", String(mcpUpdate!.version), "--json");
    expect(back.code).toBe(0);
    expect([back.json.changed, back.json.reverted_to]).toEqual([true, mcpUpdate!.version]);
    expect(file("people/Zed.md")).toBe(shown.json.after);
    const newest = (await versions("Zed"))[0]!;
    expect([newest.action, newest.writer, newest.summary]).toEqual([
      "revert",
      "cli",
      expect.stringMatching(/^back to #\d+: keywords/),
    ]);
    const again = await cli("revert", "Zed", "--version", String(mcpUpdate!.version));
    expect([again.code, again.stdout]).toEqual([
      0,
      `people/Zed already is as it was after version ${mcpUpdate!.version}; nothing was written.\n`,
    ]);
  });

  test.each([
    ["a version the card does not have", ["revert", "Zed", "--version", "9999"], 3],
    ["no version at all", ["revert", "Zed"], 2],
    ["a card nobody wrote", ["history", "Nobody"], 3],
  ])("%s: exit code %p and a JSON error", async (_what, args, code) => {
    const r = await cli(...(args as string[]), "--json");
    expect(r.code).toBe(code);
    expect(Object.keys(r.json)).toEqual(["error", "detail"]);
  });

  test("an archived card's history is still listed; reverting it is refused until it is restored", async () => {
    expect(
      (
        await fetch(`${editor.url}/api/cards/people/Alice`, {
          method: "DELETE",
          headers: { "x-lorecards": "1" },
        })
      ).status,
    ).toBe(200);
    const [archived] = await versions("Alice");
    expect([archived!.action, archived!.writer, archived!.size]).toEqual(["archive", "api", null]);
    const r = await cli("revert", "Alice", "--version", String(archived!.version));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("in the archive (_archive/people/Alice.md)");
  });
});

describe("try --as-of", () => {
  /** Quill's first version fires on "inkwell"; an edit since swapped that keyword for "featherpen". */
  let first: Version;
  beforeAll(async () => {
    const made = await api(
      "POST",
      "/api/cards",
      { kind: "thing", title: "Quill", keywords: ["inkwell"] },
      false,
    );
    expect(made.status).toBe(201);
    const edited = await api("PUT", "/api/cards/thing/Quill", { keywords: ["featherpen"] }, false);
    expect(edited.status).toBe(200);
    first = (await versions("Quill")).at(-1)!;
  });
  const fired = (r: { json: { fired: { key: string }[] } }) => r.json.fired.map((f) => f.key);

  test("a sentence fires the card its old keyword named as of that version, and not now", async () => {
    const now = await cli("try", "an inkwell on the desk", "--json");
    const then = await cli("try", "an inkwell on the desk", "--as-of", String(first.version), "--json");
    expect(fired(now)).not.toContain("Quill");
    expect(fired(then)).toContain("Quill");
    expect(then.json.as_of).toMatchObject({ version: first.version, at: first.at });
  });

  test("a time names the same vault as the version written then", async () => {
    const then = await cli("try", "an inkwell on the desk", "--as-of", first.at, "--json");
    expect(then.json.as_of.version).toBe(first.version);
    expect(fired(then)).toContain("Quill");
  });

  test("the text answer says which version and how many cards come from history or as now", async () => {
    const r = await cli("try", "a zeppelin ride", "--as-of", String(first.version));
    expect(r.stdout.split("\n")[0]).toMatch(
      new RegExp(
        `^As of version ${first.version} \\(.+\\): \\d+ card\\(s\\) from history, \\d+ without history taken as they are now\\.$`,
      ),
    );
  });

  test.each([
    [["--as-of", "someday"], 2],
    [["--as-of", "99999"], 3],
    [["--as-of", "1", "--log"], 2],
  ])("%p is refused with exit code %p", async (flags, code) => {
    expect((await cli("try", "zeppelin", ...flags)).code).toBe(code);
  });
});
