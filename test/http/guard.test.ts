// The one set of guards every HTTP surface puts in front of its handler, with each surface's options:
// the API's (listed names and port, no cross-site at all, Bearer, X-Lorecards on writes, no preflight),
// the gateway's on loopback (loopback names, cross-site only as JSON, X-Lorecards-Token, preflights
// pass) and MCP's (loopback names, pages from this machine, either token header, the throttle).
import { describe, expect, test } from "bun:test";
import { createThrottle, type GuardRules, guardRequest } from "../../src/http/index.ts";

const TOKEN = "a-good-long-token-123";

const API: GuardRules = {
  hosts: ["localhost", "127.0.0.1", "::1"],
  port: 8766,
  crossSite: "refuse",
  writeHeader: true,
  preflight: "refuse",
};
const GATEWAY: GuardRules = { hosts: ["box.lan"], loopback: true, crossSite: "json", preflight: "pass" };
const MCP: GuardRules = {
  loopback: true,
  crossSite: "refuse",
  loopbackPages: true,
  tokenHeaders: ["authorization", "x-lorecards-token"],
};

function request(method: string, headers: Record<string, string>): Request {
  const body = method === "GET" || method === "HEAD" || method === "OPTIONS" ? undefined : "{}";
  return new Request("http://127.0.0.1:8766/x", { method, headers, body });
}

const status = (rules: GuardRules, method: string, headers: Record<string, string>) =>
  guardRequest(request(method, headers), rules)?.status ?? 200;

describe("the Host rule", () => {
  test.each([
    ["API", API, "localhost:8766", 200],
    ["API", API, "LOCALHOST:8766", 200],
    ["API", API, "localhost", 403],
    ["API", API, "127.0.0.1:9999", 403],
    ["API", API, "app.localhost:8766", 403],
    ["gateway", GATEWAY, "app.localhost", 200],
    ["gateway", GATEWAY, "[::1]:8765", 200],
    ["gateway", GATEWAY, "box.lan:8765", 200],
    ["gateway", GATEWAY, "evil.example:8765", 403],
    // Host names are case-insensitive (RFC 9110 §4.2.3), in the header and in --allow-host.
    ["gateway", GATEWAY, "BOX.LAN:8765", 200],
    ["gateway", GATEWAY, "LOCALHOST", 200],
    ["gateway with --allow-host Box.Lan", { ...GATEWAY, hosts: ["Box.Lan"] }, "box.lan", 200],
    ["MCP", MCP, "LOCALHOST:8767", 200],
    ["MCP", MCP, "127.0.0.1:8767", 200],
    ["MCP", MCP, "evil.example", 403],
    ["MCP off loopback (no Host rule)", { ...MCP, loopback: false }, "evil.example", 200],
  ])("%s: Host %s gets %d", (_surface, rules, host, expected) => {
    expect(status(rules, "GET", { host })).toBe(expected);
  });

  test("a refused Host is named, with the surface's hint", async () => {
    const res = guardRequest(request("GET", { host: "evil.example" }), {
      ...GATEWAY,
      hostHint: "see --allow-host",
    });
    expect(await res?.json()).toEqual({
      error: "forbidden",
      detail: 'this server does not serve the host "evil.example" (see --allow-host)',
    });
  });
});

describe("the cross-site rule", () => {
  const page = (origin: string, extra: Record<string, string> = {}) => ({
    host: "127.0.0.1:8766",
    origin,
    ...extra,
  });
  test.each([
    [
      "API: its own page",
      API,
      "GET",
      page("http://127.0.0.1:8766", { "sec-fetch-site": "same-origin" }),
      200,
    ],
    ["API: another site", API, "GET", page("http://evil.example"), 403],
    ["API: the same host on another port", API, "GET", page("http://127.0.0.1:3000"), 403],
    ["API: an opaque origin", API, "GET", page("null"), 403],
    [
      "API: a cross-site fetch without Origin",
      API,
      "GET",
      { host: "127.0.0.1:8766", "sec-fetch-site": "cross-site" },
      403,
    ],
    [
      "gateway: a cross-site text/plain POST",
      GATEWAY,
      "POST",
      page("https://some.site", { "content-type": "text/plain" }),
      403,
    ],
    [
      "gateway: a cross-site JSON POST",
      GATEWAY,
      "POST",
      page("https://some.site", { "content-type": "application/json" }),
      200,
    ],
    ["gateway: a cross-site GET", GATEWAY, "GET", page("https://some.site"), 200],
    [
      "MCP: a page from this machine",
      MCP,
      "POST",
      page("http://localhost:6274", { "x-lorecards": "1" }),
      200,
    ],
    ["MCP: another site", MCP, "POST", page("https://evil.example"), 403],
  ])("%s", (_what, rules, method, headers, expected) => {
    expect(status(rules, method, headers)).toBe(expected);
  });
});

describe("the token rule", () => {
  const withToken = (rules: GuardRules): GuardRules => ({ ...rules, token: TOKEN });
  test.each([
    ["API: a Bearer token", withToken(API), { authorization: `Bearer ${TOKEN}` }, 200],
    ["API: X-Lorecards-Token is not its header", withToken(API), { "x-lorecards-token": TOKEN }, 401],
    ["API: another scheme", withToken(API), { authorization: `Basic ${TOKEN}` }, 401],
    [
      "gateway: X-Lorecards-Token",
      withToken({ ...GATEWAY, tokenHeaders: ["x-lorecards-token"] }),
      { "x-lorecards-token": TOKEN },
      200,
    ],
    [
      "gateway: Bearer is the upstream's, not ours",
      withToken({ ...GATEWAY, tokenHeaders: ["x-lorecards-token"] }),
      { authorization: `Bearer ${TOKEN}` },
      401,
    ],
    ["MCP: Bearer", withToken(MCP), { authorization: `Bearer ${TOKEN}` }, 200],
    ["MCP: X-Lorecards-Token", withToken(MCP), { "x-lorecards-token": TOKEN }, 200],
    [
      "MCP: a wrong one beside the right one",
      withToken(MCP),
      { authorization: "Bearer nope", "x-lorecards-token": TOKEN },
      200,
    ],
  ])("%s", (_what, rules, headers, expected) => {
    expect(status(rules, "GET", { host: "127.0.0.1:8766", ...headers })).toBe(expected);
  });

  test("a refusal names the headers the surface takes, and a Bearer surface says so in WWW-Authenticate", async () => {
    const mcp = guardRequest(request("GET", { host: "localhost" }), { ...MCP, token: TOKEN });
    expect((await mcp!.json()).detail).toBe(
      "missing or wrong token (Authorization: Bearer … or X-Lorecards-Token)",
    );
    expect(mcp?.headers.get("www-authenticate")).toBe('Bearer realm="lorecards"');
    const gateway = guardRequest(request("GET", { host: "localhost" }), {
      token: TOKEN,
      tokenHeaders: ["x-lorecards-token"],
    });
    expect(gateway?.headers.get("www-authenticate")).toBeNull();
  });

  test("wrong tokens are throttled per address; a missing token is not counted", () => {
    let now = 0;
    const rules: GuardRules = { ...MCP, token: TOKEN, throttle: createThrottle({ now: () => now }) };
    const send = (headers: Record<string, string>, address = "192.0.2.1") =>
      guardRequest(request("POST", { host: "localhost", ...headers }), rules, address)?.status ?? 200;
    for (let i = 0; i < 8; i++) expect(send({})).toBe(401);
    expect(send({ "x-lorecards-token": TOKEN })).toBe(200);
    for (let i = 0; i < 5; i++) expect(send({ "x-lorecards-token": "wrong-guess" })).toBe(401);
    expect(send({ "x-lorecards-token": TOKEN })).toBe(429);
    expect(send({ "x-lorecards-token": TOKEN }, "198.51.100.1")).toBe(200);
    now += 60_000;
    expect(send({ "x-lorecards-token": TOKEN })).toBe(200);
  });
});

describe("writes and preflights", () => {
  test.each([
    ["API: a write without X-Lorecards", API, "POST", {}, 403],
    ["API: a write with X-Lorecards: 1", API, "POST", { "x-lorecards": "1" }, 200],
    ["API: any OPTIONS", API, "OPTIONS", { "access-control-request-method": "POST" }, 405],
    [
      "gateway: a preflight passes without the token",
      { ...GATEWAY, token: TOKEN },
      "OPTIONS",
      { "access-control-request-method": "POST", origin: "https://some.site" },
      200,
    ],
    ["gateway: a plain OPTIONS needs the token", { ...GATEWAY, token: TOKEN }, "OPTIONS", {}, 401],
  ])("%s", (_what, rules, method, headers, expected) => {
    expect(status(rules, method, { host: "localhost:8766", ...headers })).toBe(expected);
  });
});
