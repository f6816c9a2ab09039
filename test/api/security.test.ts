// The editor's server hardened: no card read or written through a symbolic link, the security headers
// on every response (the page, its files, the API, errors), wrong tokens slowed down per address, and a
// request without Host answered 400. The API is called with `new Request(…)`; the headers and the
// Host-less request need the real server (serveEditor, in process, on a free port).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApi } from "../../src/api/index.ts";
import { serveEditor } from "../../src/cli/ui.ts";
import type { Listener, Peer } from "../../src/http/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { apiRequest } from "../support/api-request.ts";
import { type LinkedVault, linkedVault, SECRET } from "../support/links.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const TOKEN = "0123456789abcdef0123";
const engines: Engine[] = [];
afterAll(() => {
  for (const e of engines.splice(0)) e.close();
});

async function engineOn(root: string): Promise<Engine> {
  const engine = await openEngine(root, { segmenter: false });
  engines.push(engine);
  return engine;
}

describe("symbolic links through the API", () => {
  let linked: LinkedVault;
  let api: ReturnType<typeof createApi>;
  beforeAll(async () => {
    linked = linkedVault();
    api = createApi({ engine: await engineOn(linked.root), hosts: ["127.0.0.1"], port: 8766 });
  });
  afterAll(() => linked.remove());

  test("the card list shows no card reached through a link", async () => {
    const res = await api(apiRequest("GET", "/api/cards"));
    const text = await res.text();
    expect(res.status).toBe(200);
    for (const name of ["passwd", "zanzibar", "Ally"]) expect(text).not.toContain(name);
  });

  test("the archive list shows nothing through a linked archive folder", async () => {
    const res = await api(apiRequest("GET", "/api/cards?archived=1"));
    expect(await res.json()).toEqual({ cards: [], broken: [] });
  });

  test.each([
    ["a card file that links out", "/api/cards/people/passwd", "people/passwd.md"],
    ["a card in a kind directory that links out", "/api/cards/slang/zanzibar", "slang"],
  ])("reading %s is 403, naming the link and showing nothing of its target", async (_, url, link) => {
    const res = await api(apiRequest("GET", url));
    expect(res.status).toBe(403);
    const body = (await res.json()) as { error: string; detail: string };
    expect(body.error).toBe("forbidden");
    expect(body.detail).toContain(link);
    expect(JSON.stringify(body)).not.toContain(SECRET);
  });

  test("creating a card in a kind directory that links out is 403 and writes nothing outside", async () => {
    const before = linked.outsideFiles();
    const res = await api(apiRequest("POST", "/api/cards", { kind: "slang", key: "new", title: "new" }));
    expect(res.status).toBe(403);
    expect(linked.outsideFiles()).toEqual(before);
  });

  test("try surfaces no card reached through a link", async () => {
    const res = await api(apiRequest("POST", "/api/try", { text: "what about zanzibar?" }));
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).not.toContain(SECRET);
  });

  test("the health check names each link and its target", async () => {
    const res = await api(apiRequest("GET", "/api/checkup"));
    const { findings } = (await res.json()) as { findings: { code: string; card: string; detail: string }[] };
    const links = findings.filter((f) => f.code === "symlink");
    expect(links.map((f) => f.card).sort()).toEqual([
      "_archive",
      "people/Ally.md",
      "people/passwd.md",
      "slang",
    ]);
    expect(links.find((f) => f.card === "people/passwd.md")?.detail).toContain(linked.outside);
  });
});

describe("wrong tokens are slowed down", () => {
  let root: string;
  let clock = 0;
  let api: ReturnType<typeof createApi>;
  const from = (address: string): Peer => ({ requestIP: () => ({ address }) });
  const get = (token: string | null, address = "203.0.113.7") =>
    api(
      apiRequest("GET", "/api/kinds", undefined, token === null ? {} : { authorization: `Bearer ${token}` }),
      from(address),
    );

  beforeAll(async () => {
    root = makeVault();
    api = createApi({
      engine: await engineOn(root),
      hosts: ["127.0.0.1"],
      port: 8766,
      token: TOKEN,
      throttle: { now: () => clock },
    });
  });
  afterAll(() => removeDir(root));

  test("after five wrong tokens in a minute one address gets 429 with Retry-After, even with the right token", async () => {
    clock = 1_000_000;
    for (let i = 0; i < 5; i++) expect((await get("wrong-guess")).status).toBe(401);
    const slowed = await get("wrong-guess");
    expect(slowed.status).toBe(429);
    expect(slowed.headers.get("retry-after")).toBe("60");
    expect(await slowed.json()).toEqual({ error: "rate_limited", detail: expect.stringContaining("60 s") });
    expect((await get(TOKEN)).status).toBe(429);
    expect((await get(TOKEN, "198.51.100.1")).status).toBe(200);
    clock += 30_000;
    expect((await get(TOKEN)).headers.get("retry-after")).toBe("30");
    clock += 30_000;
    expect((await get(TOKEN)).status).toBe(200);
  });

  test("wrong tokens spread over more than a minute are not slowed down", async () => {
    clock = 5_000_000;
    for (let i = 0; i < 10; i++) {
      expect((await get("wrong-guess", "192.0.2.9")).status).toBe(401);
      clock += 15_000;
    }
  });

  test("requests without any token (the page opened without its link) are not counted", async () => {
    clock = 9_000_000;
    for (let i = 0; i < 10; i++) expect((await get(null, "192.0.2.44")).status).toBe(401);
    expect((await get(TOKEN, "192.0.2.44")).status).toBe(200);
  });
});

/** Raw bytes to the server and the raw answer: what an HTTP/1.0 client without Host sends. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    let answer = "";
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open: (s) => void s.write(text),
        data: (_s, d) => {
          answer += new TextDecoder().decode(d);
        },
        close: () => resolve(answer),
        error: () => resolve(answer),
      },
    });
  });
}

describe("the editor's server", () => {
  let root: string;
  let server: Listener;
  let files: string[] = [];
  beforeAll(async () => {
    root = makeVault();
    server = await serveEditor({ engine: await engineOn(root), host: "127.0.0.1", port: 0 });
    const html = await (await fetch(`${server.url}/`)).text();
    files = [...html.matchAll(/(?:src|href)="(\/chunk-[^"]+)"/g)].map((m) => m[1]!);
  });
  afterAll(async () => {
    await server.stop(true);
    removeDir(root);
  });

  const SECURITY = [
    "x-frame-options",
    "x-content-type-options",
    "referrer-policy",
    "content-security-policy",
  ];

  test("the page links a script and a stylesheet, served by the same server", () => {
    expect(files.some((f) => f.endsWith(".js"))).toBe(true);
    expect(files.some((f) => f.endsWith(".css"))).toBe(true);
  });

  test.each([
    ["GET", "/", 200],
    ["HEAD", "/", 200],
    ["GET", "<script>", 200],
    ["GET", "<stylesheet>", 200],
    ["GET", "/manifest.webmanifest", 200],
    ["GET", "/icon.svg", 200],
    ["GET", "/icon-180.png", 200],
    ["GET", "/api/kinds", 200],
    ["GET", "/api/cards/people/nobody", 404],
    ["POST", "/api/cards", 403],
    ["GET", "/nothing-here", 404],
  ])("%s %s (%d) carries the security headers", async (method, which, status) => {
    const url =
      which === "<script>"
        ? files.find((f) => f.endsWith(".js"))!
        : which === "<stylesheet>"
          ? files.find((f) => f.endsWith(".css"))!
          : which;
    const res = await fetch(`${server.url}${url}`, { method });
    expect(res.status).toBe(status);
    const got = Object.fromEntries(SECURITY.map((h) => [h, res.headers.get(h)]));
    expect(got).toEqual({
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "content-security-policy": expect.stringMatching(/^default-src 'none'; .*; frame-ancestors 'none'$/),
    });
  });

  test("the header's policy is the page's meta tag policy plus frame-ancestors 'none'", async () => {
    const res = await fetch(`${server.url}/`);
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(await res.text())![1];
    expect(res.headers.get("content-security-policy")).toBe(`${meta}; frame-ancestors 'none'`);
  });

  test("the page and its files keep their content types, and a revalidation gets a 304", async () => {
    const page = await fetch(`${server.url}/`);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    const script = await fetch(`${server.url}${files.find((f) => f.endsWith(".js"))}`);
    expect(script.headers.get("content-type")).toStartWith("text/javascript");
    const again = await fetch(`${server.url}/`, { headers: { "if-none-match": page.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });

  test.each(["/", "/api/cards", "/manifest.webmanifest", "/nothing-here"])(
    "an HTTP/1.0 request for %s without Host is answered 400, not a stack trace",
    async (url) => {
      const answer = await rawRequest(server.port, `GET ${url} HTTP/1.0\r\n\r\n`);
      expect(answer).toStartWith("HTTP/1.1 400 ");
      expect(answer.toLowerCase()).toContain("x-frame-options: deny");
      expect(answer).toContain('{"error":"invalid_input","detail":"the request has no Host header');
    },
  );
});
