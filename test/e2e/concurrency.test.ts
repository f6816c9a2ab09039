// Every surface at once on one vault, each in its own process of the compiled binary: the editor's
// HTTP API (`ui`), `mcp` on stdio (through the SDK's client), a loop of `import`s, the gateway in front
// of the fake upstream, and the hook. After a few seconds: every acknowledged write is on disk, two
// surfaces editing different parts of one card lost nothing, no file is torn, the gateway never
// answered a 5xx, and state.db is readable and consistent.

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { statePath } from "../../src/state/index.ts";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { anthropicBody, openaiBody, responsesBody } from "../support/bodies.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { startGatewayBinary } from "../support/gateway-binary.ts";
import { cardFiles, seededRandom, startEditor, versionIn, versionText } from "./_writers.ts";

const RUN_MS = 8000;

let bin = "";
let dir = "";
let root = "";
let upstream: FakeUpstream;
beforeAll(async () => {
  bin = await ensureBinary();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-concurrency-"));
  root = path.join(dir, "vault");
  upstream = startFakeUpstream();
  const init = await runBinary(["init", root], { env: { HOME: dir } });
  expect(init.code).toBe(0);
});
afterAll(async () => {
  await upstream.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What each writer was told was done: the last version per card, the cards created, the books imported. */
interface Ledger {
  apiVersion: Map<string, number>;
  apiCreated: string[];
  mcpRecent: Map<string, number>;
  mcpCreated: string[];
  sharedKeywords: number;
  sharedRecent: number;
  books: Map<number, number>;
  gateway: { requests: number; injected: number; statuses: Map<number, number> };
  hooks: number;
}

const API_CARDS = ["A0", "A1", "A2"];
const MCP_CARDS = ["B0", "B1"];
const SHARED = "Shared";
const BOOK_ENTRIES = 60;
const entryKey = (book: number, i: number) => `I${book}-${i}`;

function seedCards(): void {
  for (const n of [...API_CARDS, ...MCP_CARDS, SHARED]) {
    const text = `---\ntitle: ${n}\nkeywords: [${n.toLowerCase()}]\n---\n## who\n${versionText(n, 0)}\n## recent\nnothing yet\n`;
    fs.writeFileSync(path.join(root, "people", `${n}.md`), text);
  }
}

function bookFile(book: number, v: number): string {
  const entries = Object.fromEntries(
    Array.from({ length: BOOK_ENTRIES }, (_, i) => [
      String(i),
      { key: [entryKey(book, i)], comment: entryKey(book, i), content: versionText(entryKey(book, i), v, 4) },
    ]),
  );
  const file = path.join(dir, `book-${book}-v${v}.json`);
  fs.writeFileSync(file, JSON.stringify({ entries }));
  return file;
}

describe("the API, MCP, CLI imports, the gateway and the hook at once on one vault", () => {
  test("lose no acknowledged write, tear no file, never answer 5xx from the gateway", async () => {
    const rnd = seededRandom("concurrency");
    seedCards();
    const ledger: Ledger = {
      apiVersion: new Map(API_CARDS.map((n) => [n, 0])),
      apiCreated: [],
      mcpRecent: new Map(),
      mcpCreated: [],
      sharedKeywords: -1,
      sharedRecent: -1,
      books: new Map(),
      gateway: { requests: 0, injected: 0, statuses: new Map() },
      hooks: 0,
    };
    const editor = await startEditor(bin, root, dir);
    const gateway = await startGatewayBinary(bin, root, upstream.url, dir);
    const transport = new StdioClientTransport({
      command: bin,
      args: ["mcp", "--vault", root],
      env: { PATH: process.env.PATH ?? "", HOME: dir },
      stderr: "pipe",
    });
    const mcp = new Client({ name: "concurrency-test", version: "0" });
    await mcp.connect(transport);
    const deadline = Date.now() + RUN_MS;
    const running = () => Date.now() < deadline;

    const apiWriter = async () => {
      for (let v = 1; running(); v++) {
        for (const n of API_CARDS) {
          const res = await editor.api("PUT", `/api/cards/people/${n}`, {
            title: n,
            body: versionText(n, v),
          });
          expect(res.status).toBe(200);
          ledger.apiVersion.set(n, v);
        }
        const key = `C${v}`;
        const res = await editor.api("POST", "/api/cards", { kind: "thing", key, body: versionText(key, 1) });
        expect(res.status).toBe(201);
        ledger.apiCreated.push(key);
        // Frontmatter only: the body (and the recent section MCP writes) must stay as it is.
        const shared = await editor.api("PUT", `/api/cards/people/${SHARED}`, {
          title: SHARED,
          keywords: [`kw${v}`],
        });
        expect(shared.status).toBe(200);
        ledger.sharedKeywords = v;
      }
    };

    const call = async (args: Record<string, unknown>) => {
      const r = (await mcp.callTool({ name: "write_card", arguments: args })) as CallToolResult;
      const first = r.content[0];
      if (r.isError) throw new Error(`write_card failed: ${first?.type === "text" ? first.text : ""}`);
    };
    const mcpWriter = async () => {
      for (let v = 1; running(); v++) {
        for (const n of MCP_CARDS) {
          await call({ mode: "update_recent", name: n, kind: "people", text: versionText(`${n} recent`, v) });
          ledger.mcpRecent.set(n, v);
        }
        await call({
          mode: "create",
          kind: "place",
          title: `M${v}`,
          sections: [{ heading: "where", text: versionText(`M${v}`, 1) }],
        });
        ledger.mcpCreated.push(`M${v}`);
        await call({ mode: "update_recent", name: SHARED, text: versionText(`${SHARED} recent`, v) });
        ledger.sharedRecent = v;
      }
    };

    const importer = async () => {
      for (let round = 0; running(); round++) {
        // New books, and now and then the first book again with --force and a new version.
        const again = round > 0 && rnd.next() < 0.3;
        const book = again ? 0 : round;
        const v = again ? round : 0;
        const args = [
          "import",
          bookFile(book, v),
          "--book",
          "main",
          "--kind",
          "slang",
          "--vault",
          root,
          ...(again ? ["--force"] : []),
        ];
        const r = await runBinary(args, { env: { HOME: dir } });
        if (r.code !== 0) throw new Error(`lorecards ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
        ledger.books.set(book, v);
      }
    };

    const chats = [
      ["/v1/chat/completions", openaiBody],
      ["/v1/messages", anthropicBody],
      ["/v1/responses", responsesBody],
    ] as const;
    const chatter = async (who: number) => {
      for (let i = 0; running(); i++) {
        const [route, body] = chats[(i + who) % chats.length]!;
        const words = [
          "a0",
          "b1",
          "shared",
          "alice",
          entryKey(0, rnd.int(0, BOOK_ENTRIES - 1)),
          `c${rnd.int(1, 20)}`,
        ];
        const text = `what about ${words[rnd.int(0, words.length - 1)]} and ${words[rnd.int(0, words.length - 1)]}?`;
        const res = await fetch(`${gateway.url}${route}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-lorecards-conversation": `conv-${who}-${i % 4}` },
          body: JSON.stringify(body({ messages: [{ role: "user", content: text }] })),
        });
        await res.text();
        ledger.gateway.requests++;
        ledger.gateway.statuses.set(res.status, (ledger.gateway.statuses.get(res.status) ?? 0) + 1);
        if (res.headers.get("x-lorecards-injected")) ledger.gateway.injected++;
      }
    };

    const hooker = async () => {
      for (let i = 0; running(); i++) {
        const stdin = JSON.stringify({
          hook_event_name: "UserPromptSubmit",
          session_id: `s${i % 3}`,
          prompt: "how is A0 doing, and alice?",
        });
        const r = await runBinary(["hook", "--vault", root], { stdin, env: { HOME: dir } });
        expect(r.code).toBe(0);
        ledger.hooks++;
        await Bun.sleep(50);
      }
    };

    try {
      await Promise.all([apiWriter(), mcpWriter(), importer(), chatter(0), chatter(1), hooker()]);
    } finally {
      await mcp.close();
      await editor.kill();
      await gateway.stop();
    }
    console.log(
      `concurrency: ${[...ledger.apiVersion.values()][0]} API rounds, ${ledger.mcpCreated.length} MCP rounds, ` +
        `${ledger.books.size} books, ${ledger.gateway.requests} gateway requests (${ledger.gateway.injected} injected), ` +
        `${ledger.hooks} hook runs`,
    );

    // The gateway answered what the upstream answered (200), never a status of its own.
    expect([...ledger.gateway.statuses.keys()]).toEqual([200]);
    expect(ledger.gateway.injected).toBeGreaterThan(0);
    expectOnDisk(ledger);
    expectStateReadable();
    // The persisted index, updated by every process in turn, lists every card on disk.
    const list = await runBinary(["list", "--vault", root, "--json"], { env: { HOME: dir } });
    const listed = new Set(
      (JSON.parse(list.stdout) as { cards: { path: string }[] }).cards.map((c) => c.path),
    );
    expect([...cardFiles(root).keys()].filter((p) => !listed.has(p) && !p.startsWith("_archive/"))).toEqual(
      [],
    );
    const check = await runBinary(["check", "--vault", root, "--json"], { env: { HOME: dir } });
    const report = JSON.parse(check.stdout) as { findings: { severity: string; code: string }[] };
    expect(report.findings.filter((f) => f.severity === "error")).toEqual([]);
  });
});

/** Every acknowledged write is on disk, whole. */
function expectOnDisk(ledger: Ledger): void {
  const files = cardFiles(root);
  const card = (rel: string) => {
    const text = files.get(rel);
    if (text === undefined) throw new Error(`${rel} is missing`);
    return text;
  };
  for (const [n, v] of ledger.apiVersion) expect(versionIn(card(`people/${n}.md`), n)).toBe(v);
  for (const key of ledger.apiCreated) expect(versionIn(card(`things/${key}.md`), key)).toBe(1);
  for (const [n, v] of ledger.mcpRecent) expect(versionIn(card(`people/${n}.md`), `${n} recent`)).toBe(v);
  for (const key of ledger.mcpCreated) expect(versionIn(card(`places/${key}.md`), key)).toBe(1);
  for (const [book, v] of ledger.books) {
    for (let i = 0; i < BOOK_ENTRIES; i++) {
      const key = entryKey(book, i);
      expect(versionIn(card(`slang/${key}.md`), key, 4)).toBe(v);
    }
  }
  // Two surfaces, two parts of one card: neither write undid the other.
  const shared = card(`people/${SHARED}.md`);
  if (ledger.sharedKeywords >= 0) expect(shared).toContain(`keywords: [kw${ledger.sharedKeywords}]`);
  if (ledger.sharedRecent >= 0) expect(versionIn(shared, `${SHARED} recent`)).toBe(ledger.sharedRecent);
  expect(versionIn(shared, SHARED)).toBe(0);
  // No file anywhere is torn: every versioned card holds one whole version.
  for (const [rel, text] of files) {
    const name = path.basename(rel, ".md");
    if (/^(A|B|C|M|I)\d/.test(name)) versionIn(text, name, name.startsWith("I") ? 4 : 40);
  }
}

/** state.db passes SQLite's integrity check and holds what the gateway and the hook recorded. */
function expectStateReadable(): void {
  const db = new Database(statePath(root), { readonly: true });
  try {
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    const tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    const rows = tables.reduce(
      (n, t) => n + (db.query(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n,
      0,
    );
    expect(rows).toBeGreaterThan(0);
  } finally {
    db.close();
  }
}
