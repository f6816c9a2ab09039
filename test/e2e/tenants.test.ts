/**
 * The example configuration of docs/DEPLOYMENT.md "One process with many tenants", served as it is by
 * the compiled `gateway`, `ui` and `mcp --http`: docs/examples/tenants.yaml (its example tokens), the
 * official openai client and the MCP SDK's client as the tenants' clients. Each gets its own cards,
 * a tenant over its limit waits, and a tenant added with `lorecards tenant add` while they run is
 * served on its next request.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import OpenAI from "openai";
import { ensureBinary, REPO, runBinary } from "../support/binary.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { firstJsonLine } from "./_writers.ts";

const TOKENS = { ann: "ann-example-token-0123456789", bob: "bob-example-token-0123456789" };

let home: string;
let file: string;
let upstream: FakeUpstream;
const servers: ReturnType<typeof Bun.spawn>[] = [];
const urls: Record<"gateway" | "ui" | "mcp", string> = { gateway: "", ui: "", mcp: "" };

async function serve(kind: "gateway" | "ui" | "mcp", args: string[]): Promise<string> {
  const bin = await ensureBinary();
  const proc = Bun.spawn([bin, ...args, "--tenants", file, "--port", "0", "--json"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", HOME: home },
  });
  servers.push(proc);
  return firstJsonLine(proc, kind);
}

function card(tenant: string, rel: string, keywords: string, text: string): void {
  const at = path.join(home, "vaults", tenant, rel);
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.writeFileSync(at, `---\nkeywords: [${keywords}]\n---\n${text}\n`);
}

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "lc-tenants-"));
  file = path.join(home, "tenants.yaml");
  fs.copyFileSync(path.join(REPO, "docs/examples/tenants.yaml"), file);
  card("ann", "people/Mother.md", "mother", "ANN-SECRET: a baker.");
  card("bob", "people/Mother.md", "mother", "BOB-SECRET: a pilot.");
  upstream = startFakeUpstream();
  urls.gateway = await serve("gateway", ["gateway", "--upstream", upstream.url]);
  urls.ui = await serve("ui", ["ui"]);
  urls.mcp = await serve("mcp", ["mcp", "--http"]);
}, 120_000);

afterAll(async () => {
  for (const s of servers) s.kill();
  await Promise.all(servers.map((s) => s.exited));
  await upstream?.close();
  fs.rmSync(home, { recursive: true, force: true });
});

const client = (token: string, baseURL = `${urls.gateway}/v1`) =>
  new OpenAI({ baseURL, apiKey: "sk-test", defaultHeaders: { "x-lorecards-token": token }, maxRetries: 0 });

async function askMother(c: OpenAI): Promise<string> {
  await c.chat.completions.create({
    model: "gpt-test",
    messages: [{ role: "user", content: "How is my mother?" }],
  });
  return upstream.received.at(-1)!.body;
}

describe("the example tenants file, served by the compiled binary", () => {
  test("the gateway gives each tenant's client its own card of a name both vaults hold", async () => {
    const ann = await askMother(client(TOKENS.ann));
    expect(ann).toContain("ANN-SECRET");
    expect(ann).not.toContain("BOB-SECRET");
    const bob = await askMother(client(TOKENS.bob, `${urls.gateway}/t/bob/v1`));
    expect(bob).toContain("BOB-SECRET");
    expect(upstream.received.at(-1)!.path).toBe("/v1/chat/completions");
  });

  test("a wrong token, or a tenant's token under another's prefix, is refused and sent nowhere", async () => {
    const before = upstream.received.length;
    await expect(askMother(client("not-a-tenant-0123456789"))).rejects.toThrow(/401/);
    await expect(askMother(client(TOKENS.ann, `${urls.gateway}/t/bob/v1`))).rejects.toThrow(/401/);
    expect(upstream.received.length).toBe(before);
  });

  test("the editor's API and MCP answer each token with its own tenant's cards", async () => {
    for (const [name, token] of Object.entries(TOKENS)) {
      const res = await fetch(`${urls.ui}/api/cards/people/Mother`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(JSON.stringify(await res.json())).toContain(`${name.toUpperCase()}-SECRET`);
    }
    const mcp = new Client({ name: "tenant-test", version: "0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(urls.mcp), {
        requestInit: { headers: { authorization: `Bearer ${TOKENS.bob}` } },
      }),
    );
    try {
      await mcp.callTool({
        name: "write_card",
        arguments: { mode: "create", kind: "places", title: "Hangar", keywords: ["hangar"] },
      });
    } finally {
      await mcp.close();
    }
    expect(fs.existsSync(path.join(home, "vaults/bob/places/Hangar.md"))).toBe(true);
    expect(fs.existsSync(path.join(home, "vaults/ann/places/Hangar.md"))).toBe(false);
  });

  test("a tenant added with `lorecards tenant add` while they run is served on its next request", async () => {
    const added = await runBinary(
      ["tenant", "add", "carol", "--tenants", file, "--tenant-vault", "vaults/carol", "--json"],
      {
        env: { HOME: home },
      },
    );
    expect(added.code).toBe(0);
    const { token } = JSON.parse(added.stdout) as { token: string };
    card("carol", "people/Mother.md", "mother", "CAROL-SECRET: a judge.");
    expect(await askMother(client(token))).toContain("CAROL-SECRET");
  });

  test("ann's 120 requests a minute: the 121st waits, with Retry-After; bob does not", async () => {
    const headers = { "content-type": "application/json", "x-lorecards-token": TOKENS.ann };
    const statuses: number[] = [];
    for (let i = 0; i < 125; i++) {
      const res = await fetch(`${urls.gateway}/v1/models`, { headers });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    const bob = await fetch(`${urls.gateway}/v1/models`, { headers: { "x-lorecards-token": TOKENS.bob } });
    expect(bob.status).toBe(200);
  });
});
