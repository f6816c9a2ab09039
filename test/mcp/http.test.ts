// MCP over HTTP behind http/'s guards: the same Host, Origin and token rules as the other surfaces,
// and now the same throttle on wrong tokens.
import { afterAll, describe, expect, test } from "bun:test";
import { createThrottle } from "../../src/http/index.ts";
import { mcpHandler } from "../../src/mcp/index.ts";
import { openVault } from "../../src/vault/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const root = makeVault();
afterAll(() => removeDir(root));

const TOKEN = "s3cret-0123456789";
const peer = (address: string) => ({ requestIP: () => ({ address }) });

function post(headers: Record<string, string>): Request {
  return new Request("http://127.0.0.1:8767/mcp", {
    method: "POST",
    headers: {
      host: "127.0.0.1:8767",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
}

describe("MCP over HTTP with a token", () => {
  test("after five wrong tokens from one address, even the right one waits (429); other addresses do not", async () => {
    const handle = mcpHandler({
      vault: openVault(root),
      version: "0",
      token: TOKEN,
      loopback: true,
      throttle: createThrottle({ now: () => 0 }),
    });
    for (let i = 0; i < 5; i++) {
      expect((await handle(post({ "x-lorecards-token": "wrong-guess" }), peer("192.0.2.7"))).status).toBe(
        401,
      );
    }
    const slowed = await handle(post({ authorization: `Bearer ${TOKEN}` }), peer("192.0.2.7"));
    expect(slowed.status).toBe(429);
    expect(slowed.headers.get("retry-after")).toBe("60");
    expect((await handle(post({ authorization: `Bearer ${TOKEN}` }), peer("198.51.100.1"))).status).toBe(200);
  });

  test("a client that forgot the token is told so, and is not counted as guessing", async () => {
    const handle = mcpHandler({ vault: openVault(root), version: "0", token: TOKEN, loopback: true });
    for (let i = 0; i < 8; i++) expect((await handle(post({}), peer("192.0.2.8"))).status).toBe(401);
    expect((await handle(post({ "x-lorecards-token": TOKEN }), peer("192.0.2.8"))).status).toBe(200);
  });
});
