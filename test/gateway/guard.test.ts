/**
 * A gateway on loopback and the browser: a rebound DNS name and a simple cross-site POST are refused
 * before anything reaches the upstream; SDKs, CLIs and CORS-preflighted JSON from a page go through.
 */

import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { type Harness, harness } from "../support/gateway.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let upstream: FakeUpstream;
let vault: string;
const harnesses: Harness[] = [];

beforeAll(() => {
  upstream = startFakeUpstream();
  vault = makeVault();
});
afterAll(async () => {
  await upstream.close();
  removeDir(vault);
});
afterEach(() => {
  for (const h of harnesses.splice(0)) h.close();
});

function setup(allowHosts: string[] = []) {
  const h = harness(vault, upstream, {}, { guard: { allowHosts } });
  harnesses.push(h);
  return h;
}

const chat = JSON.stringify({ model: "m", messages: [{ role: "user", content: "how is alice?" }] });

describe("the gateway on loopback", () => {
  test.each(["127.0.0.1:8765", "localhost:8765", "[::1]:8765", "app.localhost"])(
    "serves the loopback host %s",
    async (host) => {
      const res = await setup().sendRaw("/v1/chat/completions", chat, { host });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-lorecards-injected")).toBe("Alice");
    },
  );

  test("refuses a host name that is not loopback (DNS rebinding) before the upstream sees anything", async () => {
    const before = upstream.received.length;
    const res = await setup().sendRaw("/v1/chat/completions", chat, { host: "evil.example:8765" });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "forbidden", detail: expect.stringContaining("evil.example") });
    expect(upstream.received.length).toBe(before);
  });

  test("serves a name given with --allow-host", async () => {
    const res = await setup(["box.lan"]).sendRaw("/v1/chat/completions", chat, { host: "box.lan:8765" });
    expect(res.status).toBe(200);
  });

  test.each([
    ["text/plain", 403],
    ["application/x-www-form-urlencoded", 403],
    ["application/json", 200],
  ])("a cross-site POST from a page as %s gets %d", async (type, status) => {
    const res = await setup().sendRaw("/v1/chat/completions", chat, {
      host: "127.0.0.1:8765",
      origin: "https://some.site",
      "sec-fetch-site": "cross-site",
      "content-type": type,
    });
    expect(res.status).toBe(status);
  });

  test("a page served by the gateway's own origin may post anything", async () => {
    const res = await setup().sendRaw("/v1/chat/completions", chat, {
      host: "127.0.0.1:8765",
      origin: "http://127.0.0.1:8765",
      "content-type": "text/plain",
    });
    expect(res.status).toBe(200);
  });
});

describe("paths the gateway does not inject into", () => {
  test("a chat-looking path passes through untouched, with one warning that names the doubled /v1", async () => {
    const h = setup();
    for (let i = 0; i < 2; i++) {
      const res = await h.sendRaw("/v1/v1/messages", chat);
      expect(res.status).toBe(200);
      expect(upstream.received.at(-1)!.body).toBe(chat);
    }
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toContain("POST /v1/v1/messages passed through without cards");
    expect(h.warnings[0]).toContain("without /v1");
  });

  test("warnings for paths passed through stop after a hundred kinds: a prober cannot grow them without end", async () => {
    const h = setup();
    for (let i = 0; i < 105; i++) await h.sendRaw(`/p${i}/messages`, chat);
    expect(h.warnings).toHaveLength(100);
    expect(h.warnings[99]).toContain("POST /p99/messages passed through");
  });

  test("every other kind of request passed through is said once, a model or project in its path not making a new kind", async () => {
    const h = setup();
    await h.sendRaw("/v1/files", "x");
    await h.sendRaw("/v1/files", "x");
    await h.sendRaw("/model/anthropic.claude-v2/converse", chat);
    await h.sendRaw("/model/meta.llama3/converse", chat);
    await h.sendRaw("/v1/projects/p1/locations/us/publishers/google/models/gemini:generateContent", chat);
    await h.sendRaw("/v1/projects/p2/locations/eu/publishers/google/models/other:generateContent", chat);
    expect(h.warnings).toEqual([
      expect.stringContaining("POST /v1/files passed through without cards"),
      expect.stringContaining("POST /model/*/converse passed through without cards"),
      expect.stringContaining(
        "POST /v1/projects/*/locations/*/publishers/*/models/*:generateContent passed through without cards",
      ),
    ]);
  });
});

describe("a gateway with a token", () => {
  test("after five wrong tokens from one address, even the right one waits (429, Retry-After)", async () => {
    const h = harness(vault, upstream, {}, { token: "a-good-long-token-123" });
    harnesses.push(h);
    const send = (token: string) => h.sendRaw("/v1/chat/completions", chat, { "x-lorecards-token": token });
    for (let i = 0; i < 5; i++) expect((await send("wrong-token-guess")).status).toBe(401);
    const slowed = await send("a-good-long-token-123");
    expect(slowed.status).toBe(429);
    expect(Number(slowed.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("a client that forgot the token is told so, and is not counted as guessing", async () => {
    const h = harness(vault, upstream, {}, { token: "a-good-long-token-123" });
    harnesses.push(h);
    for (let i = 0; i < 8; i++) expect((await h.sendRaw("/v1/chat/completions", chat)).status).toBe(401);
    const ok = await h.sendRaw("/v1/chat/completions", chat, {
      "x-lorecards-token": "a-good-long-token-123",
    });
    expect(ok.status).toBe(200);
  });
});
