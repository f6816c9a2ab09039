/**
 * One gateway, many tenants, and one tenant never reaching another: each request is answered from the
 * vault and state of the tenant whose token it carries, whatever it claims in its path, its
 * conversation id or the names of the cards it mentions. Adding, re-keying and removing a tenant take
 * effect on the next request; a tenant over its limit waits; an idle tenant holds nothing open.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { tenantGateway } from "../../src/gateway/index.ts";
import { statePath } from "../../src/state/index.ts";
import { addTenant, removeTenant, renewToken, type TenantsServer } from "../../src/tenants/index.ts";
import { openaiBody } from "../support/bodies.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { removeDir, tempDir } from "../support/vault.ts";

let upstream: FakeUpstream;
let dir: string;
let file: string;
let server: TenantsServer;
const tokens: Record<string, string> = {};

function writeCard(vault: string, rel: string, keywords: string[], body: string): void {
  const file = path.join(vault, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `---\nkeywords: [${keywords.join(", ")}]\n---\n${body}\n`);
}

beforeAll(() => {
  upstream = startFakeUpstream();
});
afterAll(() => upstream.close());

beforeEach(async () => {
  dir = tempDir();
  file = path.join(dir, "tenants.yaml");
  for (const name of ["ann", "bob"]) {
    const added = await addTenant(file, name);
    tokens[name] = added.token;
  }
  // A card of one name in both vaults, each with its own text, and one card each of their own.
  writeCard(path.join(dir, "ann"), "people/Mother.md", ["mother"], "## who\nANN-SECRET: a baker in Lyon.");
  writeCard(path.join(dir, "bob"), "people/Mother.md", ["mother"], "## who\nBOB-SECRET: a pilot in Oslo.");
  writeCard(path.join(dir, "bob"), "places/Harbour.md", ["harbour"], "## where\nBOB-HARBOUR: the old port.");
  server = tenantGateway({
    tenants: file,
    upstream: new URL(upstream.url),
    settings: { inject: "user", window: 3, budget: 800, log: true },
    deps: { warn: () => {}, learn: false },
    idleMs: 60_000,
  });
  upstream.received.length = 0;
});

afterEach(async () => {
  await server.close();
  removeDir(dir);
});

function chat(
  line: string,
  headers: Record<string, string>,
  pathname = "/v1/chat/completions",
): Promise<Response> {
  return server.fetch(
    new Request(`http://127.0.0.1:8765${pathname}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(openaiBody({ messages: [{ role: "user", content: line }] })),
    }),
  );
}

const as = (name: string) => ({ "x-lorecards-token": tokens[name]! });
const lastBody = () => upstream.received.at(-1)?.body ?? "";

describe("a gateway of tenants", () => {
  test("each tenant gets its own card of a name both vaults hold, never the other's", async () => {
    expect((await chat("How is my mother?", as("ann"))).status).toBe(200);
    expect(lastBody()).toContain("ANN-SECRET");
    expect(lastBody()).not.toContain("BOB-SECRET");
    expect((await chat("How is my mother?", as("bob"))).status).toBe(200);
    expect(lastBody()).toContain("BOB-SECRET");
    expect(lastBody()).not.toContain("ANN-SECRET");
  });

  test("a card only the other tenant has never fires", async () => {
    await chat("Meet me at the harbour", as("ann"));
    expect(lastBody()).not.toContain("BOB-HARBOUR");
  });

  test("no token, or a wrong one, is refused with nothing sent upstream; wrong ones are slowed down", async () => {
    const none = await chat("mother", {});
    expect(none.status).toBe(401);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await chat("mother", { "x-lorecards-token": `guess-${i}-000000000000` })).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses[5]).toBe(429);
    expect(upstream.received).toEqual([]);
  });

  test("a path prefix names a tenant only with that tenant's token, and is taken off before the upstream", async () => {
    expect((await chat("mother", as("ann"), "/t/ann/v1/chat/completions")).status).toBe(200);
    expect(upstream.received.at(-1)?.path).toBe("/v1/chat/completions");
    expect(lastBody()).toContain("ANN-SECRET");
    expect((await chat("mother", as("ann"), "/t/ANN/v1/chat/completions")).status).toBe(200);
    const other = await chat("mother", as("ann"), "/t/bob/v1/chat/completions");
    expect(other.status).toBe(401);
    const unknown = await chat("mother", as("ann"), "/t/carol/v1/chat/completions");
    expect(unknown.status).toBe(401);
    // Whether bob exists cannot be told from the answer: the same words for both.
    expect(await other.json()).toEqual(await unknown.json());
  });

  // The URL parser resolves dot segments (`%2e%2e` is one too) before anyone reads the path: what is
  // left is a path of the token's own tenant, or a name that cannot be one.
  test.each([
    ["dot segments out of one's own prefix", "/t/ann/../bob/v1/chat/completions", "refused"],
    ["an encoded slash in the name", "/t/bob%2F..%2Fann/v1/chat/completions", "refused"],
    ["an encoded dot segment", "/t/%2e%2e/bob/v1/chat/completions", "own"],
    ["an empty name", "/t//v1/chat/completions", "refused"],
    ["a name with a dot", "/t/bob./v1/chat/completions", "refused"],
  ])("a path trick (%s) never reaches another tenant", async (_, pathname, outcome) => {
    const before = upstream.received.length;
    const res = await chat("mother", as("ann"), pathname);
    if (outcome === "refused") {
      expect([401, 404]).toContain(res.status);
      expect(upstream.received.length).toBe(before);
    } else {
      expect(res.status).toBe(200);
      expect(lastBody()).not.toContain("BOB");
    }
  });

  test("another tenant's conversation id starts a conversation of one's own: nothing of the other is replayed", async () => {
    const id = { "x-lorecards-conversation": "shared-id-42" };
    await chat("How is my mother?", { ...as("ann"), ...id });
    expect(lastBody()).toContain("ANN-SECRET");
    const res = await chat("Tell me about the harbour", { ...as("bob"), ...id });
    expect(res.status).toBe(200);
    expect(lastBody()).toContain("BOB-HARBOUR");
    expect(lastBody()).not.toContain("ANN-SECRET");
    // Each tenant's state is its own vault's: bob's never heard of ann's turn.
    expect(fs.existsSync(statePath(path.join(dir, "ann")))).toBe(true);
    expect(fs.existsSync(statePath(path.join(dir, "bob")))).toBe(true);
  });

  test("a tenant added, re-keyed or removed is served so on the next request, without a restart", async () => {
    expect((await chat("mother", { "x-lorecards-token": "not-yet-a-token-000000" })).status).toBe(401);
    const carol = await addTenant(file, "carol");
    writeCard(path.join(dir, "carol"), "people/Mother.md", ["mother"], "## who\nCAROL-SECRET.");
    expect((await chat("mother", { "x-lorecards-token": carol.token })).status).toBe(200);
    expect(lastBody()).toContain("CAROL-SECRET");
    const renewed = await renewToken(file, "carol");
    expect((await chat("mother", { "x-lorecards-token": carol.token })).status).toBe(401);
    expect((await chat("mother", { "x-lorecards-token": renewed })).status).toBe(200);
    await removeTenant(file, "carol");
    expect((await chat("mother", { "x-lorecards-token": renewed })).status).toBe(401);
    // Its vault is left where it was.
    expect(fs.existsSync(path.join(dir, "carol", "people", "Mother.md"))).toBe(true);
  });
});

describe("a tenant's limits and what an idle one holds", () => {
  test("a tenant over its requests a minute waits (429 with Retry-After); the others do not", async () => {
    const text = fs.readFileSync(file, "utf8").replace(/( {2}ann:\n)/, "$1    requests_per_minute: 2\n");
    fs.writeFileSync(file, text);
    expect((await chat("hi", as("ann"))).status).toBe(200);
    expect((await chat("hi", as("ann"))).status).toBe(200);
    const third = await chat("hi", as("ann"));
    expect(third.status).toBe(429);
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await chat("hi", as("bob"))).status).toBe(200);
  });

  test("a tenant is opened on its first request and closed once idle; the next request opens it again", async () => {
    await server.close();
    let now = 0;
    server = tenantGateway({
      tenants: file,
      upstream: new URL(upstream.url),
      settings: { inject: "user", window: 3, budget: 800, log: true },
      deps: { warn: () => {}, learn: false },
      idleMs: 1000,
      now: () => now,
    });
    expect(server.pool.size).toBe(0);
    await chat("mother", as("ann"));
    await chat("mother", as("bob"));
    expect(server.pool.size).toBe(2);
    now += 1000;
    await server.pool.sweep();
    expect(server.pool.size).toBe(0);
    await chat("mother", as("ann"));
    expect(lastBody()).toContain("ANN-SECRET");
    expect(server.pool.size).toBe(1);
  });
});
