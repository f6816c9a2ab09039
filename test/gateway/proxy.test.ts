/**
 * Everything that is not a chat request is a plain proxy: status, headers, body and streams pass
 * through untouched, nothing is decompressed, redirects go back to the client, a client that goes away
 * stops the upstream request, and an unreachable upstream is a 502 with the error envelope.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { createHandler, encodeKey, startGateway, vaultDeps } from "../../src/gateway/index.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { BASE } from "../support/gateway.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let upstream: FakeUpstream;
let vault: string;
let handler: (req: Request) => Promise<Response>;
const deps: ReturnType<typeof vaultDeps>[] = [];

function handlerFor(url: string, warn: (line: string) => void = () => {}) {
  const d = vaultDeps({ vaultRoot: vault, engine: { watch: false }, warn });
  deps.push(d);
  return createHandler({
    upstream: new URL(url),
    settings: { inject: "user", window: 3, reinjectAfter: 6, budget: 800, log: false },
    deps: d,
  });
}

beforeAll(() => {
  upstream = startFakeUpstream();
  vault = makeVault();
  handler = handlerFor(upstream.url);
});
afterAll(async () => {
  for (const d of deps) d.close();
  await upstream.close();
  removeDir(vault);
});

const last = () => upstream.received[upstream.received.length - 1]!;

describe("proxy", () => {
  test.each([
    ["GET", "/v1/models?limit=2", undefined],
    ["PUT", "/v1/files/abc", "raw bytes"],
    ["GET", "/v1/chat/completions", undefined],
    ["POST", "/v1/messages/count_tokens", '{"messages":[{"role":"user","content":"deploy"}]}'],
  ])("%s %s passes through untouched", async (method, route, body) => {
    const res = await handler(new Request(BASE + route, { method, body }));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-upstream")).toBe("yes");
    expect(res.headers.get("connection")).toBeNull();
    const url = new URL(BASE + route);
    expect(last()).toMatchObject({ method, path: url.pathname, search: url.search, body: body ?? "" });
  });

  test("an upstream with a base path keeps it", async () => {
    const h = handlerFor(`${upstream.url}/api/`);
    await h(new Request(`${BASE}/v1/models`));
    expect(last().path).toBe("/api/v1/models");
  });

  test("a compressed response is passed on compressed", async () => {
    const res = await handler(new Request(`${BASE}/gzip`, { headers: { "accept-encoding": "gzip" } }));
    expect(res.headers.get("content-encoding")).toBe("gzip");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(new TextDecoder().decode(gunzipSync(bytes))).toBe("compressed hello");
  });

  test("a redirect goes back to the client instead of being followed", async () => {
    const res = await handler(new Request(`${BASE}/redirect`));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/elsewhere");
  });

  test("a slow stream arrives chunk by chunk", async () => {
    const res = await handler(new Request(`${BASE}/slow`));
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("data: one\n\n");
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toBe("data: two\n\ndata: three\n\n");
  });

  test("a broken upstream stream is passed through as it breaks", async () => {
    const res = await handler(new Request(`${BASE}/broken`));
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("data: first\n\n");
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return "ended cleanly";
      })(),
    ).rejects.toBeDefined();
  });

  test("a client that goes away aborts the upstream request", async () => {
    const gw = startGateway({
      vaultRoot: vault,
      upstream: upstream.url,
      port: 0,
      log: false,
      warn: () => {},
    });
    try {
      const client = new AbortController();
      const res = await fetch(`${gw.url}/hang`, { signal: client.signal });
      const reader = res.body!.getReader();
      await reader.read();
      client.abort();
      const aborted = await Promise.race([
        upstream.hangAborted.then(() => true),
        Bun.sleep(5000).then(() => false),
      ]);
      expect(aborted).toBe(true);
    } finally {
      await gw.close();
    }
  });

  test.each(["HEAD", "OPTIONS"])(
    "a %s request is passed through with the upstream's headers",
    async (method) => {
      const res = await handler(new Request(`${BASE}/v1/models`, { method }));
      expect(res.status).toBe(200);
      expect(res.headers.get("x-upstream")).toBe("yes");
      expect(last()).toMatchObject({ method, path: "/v1/models" });
    },
  );

  test.each([
    ["/v1/chat/completions", 429, false],
    ["/v1/messages", 529, false],
    ["/v1/chat/completions", 500, true],
    ["/v1/messages", 400, true],
  ])(
    "an upstream error on %s (%d, stream: %p) reaches the client untouched",
    async (route, status, stream) => {
      const res = await handler(
        new Request(BASE + route, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: `status-${status}`,
            max_tokens: 8,
            stream,
            messages: [{ role: "user", content: "the friday deploy" }],
          }),
        }),
      );
      expect(res.status).toBe(status);
      expect(res.headers.get("retry-after")).toBe("7");
      expect(res.headers.get("x-request-id")).toBe("req_fake");
      expect(await res.text()).toBe(
        JSON.stringify({
          type: "error",
          error: { type: "upstream_error", message: `failing with ${status} as asked` },
        }),
      );
    },
  );

  test("an upload over Bun's default body limit (128 MiB) still reaches the upstream whole", async () => {
    const gw = startGateway({
      vaultRoot: vault,
      upstream: upstream.url,
      port: 0,
      log: false,
      warn: () => {},
    });
    try {
      const size = 130 * 1024 * 1024;
      const res = await fetch(`${gw.url}/count`, { method: "PUT", body: new Uint8Array(size) });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(`${size} bytes`);
    } finally {
      await gw.close();
    }
  });

  test("with a token, a browser's CORS preflight (sent without it) reaches the upstream, which may allow our headers", async () => {
    const d = vaultDeps({ vaultRoot: vault, engine: { watch: false }, warn: () => {} });
    deps.push(d);
    const guarded = createHandler({
      upstream: new URL(upstream.url),
      token: "s3cret",
      settings: { inject: "user", window: 3, reinjectAfter: 6, budget: 800, log: false },
      deps: d,
    });
    const preflight = await guarded(
      new Request(`${BASE}/v1/chat/completions`, {
        method: "OPTIONS",
        headers: {
          origin: "https://pwa.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type, x-lorecards-token",
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toBe(
      "authorization, content-type, x-lorecards-token, x-lorecards-conversation, x-lorecards-lore, x-lorecards-tier, x-lorecards-earlier, x-lorecards-books",
    );
    const notPreflight = await guarded(new Request(`${BASE}/v1/chat/completions`, { method: "OPTIONS" }));
    expect(notPreflight.status).toBe(401);
  });

  test("an unreachable upstream answers 502 with the error envelope", async () => {
    const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${dead.port}`;
    await dead.stop(true);
    const res = await handlerFor(url)(
      new Request(`${BASE}/v1/chat/completions`, { method: "POST", body: '{"messages":[]}' }),
    );
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: "bad_gateway",
      detail: expect.stringContaining("unreachable"),
    });
  });

  test("an upstream that stops answering is said on stderr once, not once a request, and so is its return", async () => {
    const port = (() => {
      const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
      const p = probe.port;
      probe.stop(true);
      return p;
    })();
    const lines: string[] = [];
    const handler = handlerFor(`http://127.0.0.1:${port}`, (line) => lines.push(line));
    const ask = () => handler(new Request(`${BASE}/v1/models`, { headers: { authorization: "Bearer k" } }));
    expect((await ask()).status).toBe(502);
    expect((await ask()).status).toBe(502);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^lorecards gateway: the upstream http://127\\.0\\.0\\.1:${port} is unreachable \\(.+\\); requests get a 502 until it answers$`,
        ),
      ),
    ]);
    const back = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => Response.json({ data: [] }) });
    try {
      expect((await ask()).status).toBe(200);
      expect((await ask()).status).toBe(200);
      expect(lines.slice(1)).toEqual([
        `lorecards gateway: the upstream http://127.0.0.1:${port} answers again`,
      ]);
    } finally {
      back.stop(true);
    }
  });

  test.each([
    ["the Friday deploy", "the Friday deploy"],
    ["小林", "%E5%B0%8F%E6%9E%97"],
    ["a,b", "a%2Cb"],
    ["100%", "100%25"],
    ["café", "caf%C3%A9"],
  ])("the card name %p is written %p in X-Lorecards-Injected", (key, header) => {
    expect(encodeKey(key)).toBe(header);
    expect(decodeURIComponent(header)).toBe(key);
  });
});

describe("starting", () => {
  test.each(["0.0.0.0", "192.168.1.10", "::"])("listening on %s without a token is refused", (host) => {
    expect(() => startGateway({ vaultRoot: vault, upstream: upstream.url, host, port: 0 })).toThrow(
      /--token/,
    );
  });

  test.each(["ftp://example.com", "not a url"])("an upstream %p is refused", (bad) => {
    expect(() => startGateway({ vaultRoot: vault, upstream: bad, port: 0 })).toThrow(/--upstream/);
  });
});
