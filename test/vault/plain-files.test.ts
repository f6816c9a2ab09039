// Where a card goes, only a plain file of its own is read (src/plain-file.ts): a FIFO named like a card
// once hung `read`, `history` and the whole editor (and every later request), a folder named `Dir.md`
// answered 500, a FIFO as the hook's transcript hung the hook, and a hard link to a file outside the
// vault was read and shown. Each surface now says what the file is, and goes on answering.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createApi } from "../../src/api/index.ts";
import { checkVault } from "../../src/check/vault.ts";
import { runHook } from "../../src/hook/index.ts";
import { createMcpServer } from "../../src/mcp/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { findCard, openVault, readCard } from "../../src/vault/index.ts";
import { apiRequest } from "../support/api-request.ts";
import { makeVault, removeDir, tempDir } from "../support/vault.ts";

const SECRET = "OUTSIDE-SECRET-5521";
let root = "";
let outside = "";
let engine: Engine;

/** The odd entries made where cards go, and what a refusal calls each. */
const ODD: [name: string, what: string][] = [
  ["Fifo", "a FIFO"],
  ["Dir", "a folder"],
  ["Hard", "a hard link"],
];

beforeAll(async () => {
  root = makeVault();
  outside = tempDir();
  const people = path.join(root, "people");
  expect(Bun.spawnSync(["mkfifo", path.join(people, "Fifo.md")]).exitCode).toBe(0);
  fs.mkdirSync(path.join(people, "Dir.md"));
  fs.writeFileSync(path.join(outside, "secret.md"), `---\nkeywords: [hardy]\n---\n${SECRET}\n`);
  fs.linkSync(path.join(outside, "secret.md"), path.join(people, "Hard.md"));
  engine = await openEngine(root, { segmenter: false, watch: false });
});
afterAll(() => {
  engine.close();
  removeDir(root);
  removeDir(outside);
});

describe("a FIFO, a folder or a hard link named like a card", () => {
  test.each(ODD)("%s: reading it by name is refused, naming what it is", (name, what) => {
    const vault = openVault(root);
    for (const read of [() => readCard(vault, "people", name), () => findCard(vault, `people/${name}`)]) {
      let err: unknown;
      try {
        read();
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ code: "forbidden" });
      expect(String((err as Error).message)).toContain(`people/${name}.md is ${what}`);
    }
  });

  test("the editor answers 403 naming it, and the next request is answered", async () => {
    const api = createApi({ engine, hosts: ["127.0.0.1"], port: 8766 });
    for (const [name, what] of ODD) {
      const res = await api(apiRequest("GET", `/api/cards/people/${name}`));
      expect(res.status).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toContain(what);
    }
    const list = await api(apiRequest("GET", "/api/cards"));
    expect(list.status).toBe(200);
    expect(JSON.stringify(await list.json())).not.toContain(SECRET);
  });

  test("the MCP read tool says what it is", async () => {
    const server = createMcpServer(openVault(root), { version: "test" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "lorecards-test", version: "0" });
    await client.connect(clientSide);
    try {
      const result = (await client.callTool({
        name: "read_card",
        arguments: { name: "people/Fifo" },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain("a FIFO");
    } finally {
      await client.close();
      await server.close();
    }
  });

  test("recall reads around them, and the hard-linked file outside never fires", async () => {
    const result = await engine.recall([{ role: "user", text: "alice and hardy" }]);
    expect(JSON.stringify(result.blocks)).not.toContain(SECRET);
    expect(JSON.stringify(result.blocks)).toContain("Lyon");
  });

  test("check lists each, saying what it is", () => {
    const text = JSON.stringify(checkVault(openVault(root)));
    expect(text).toContain("a FIFO");
    expect(text).toContain("a hard link");
    expect(text).not.toContain(SECRET);
  });
});

describe("the hook's transcript", () => {
  test("a FIFO given as the transcript is no history, and the hook answers", async () => {
    const fifo = path.join(outside, "transcript.jsonl");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const stdin = JSON.stringify({
      hook_event_name: "UserPromptSubmit",
      session_id: "fifo-1",
      transcript_path: fifo,
      cwd: "/tmp",
      prompt: "how is alice?",
    });
    const r = await runHook(stdin, { vaultRoot: root, log: false, learn: false });
    expect(r.injected).toEqual(["Alice"]);
  });
});
