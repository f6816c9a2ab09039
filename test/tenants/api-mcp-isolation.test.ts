/**
 * The editor's API and MCP over HTTP for many tenants: a token lists, reads and writes its own
 * tenant's cards, whatever path it is sent to; a card of one name in two vaults is each tenant's own;
 * MCP's write_card writes into the vault of the token that called it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { tenantApi } from "../../src/api/tenants.ts";
import { tenantMcp } from "../../src/mcp/index.ts";
import { addTenant, type TenantsServer } from "../../src/tenants/index.ts";
import { API_HOST, apiRequest } from "../support/api-request.ts";
import { removeDir, tempDir } from "../support/vault.ts";

let dir: string;
let api: TenantsServer;
let mcp: TenantsServer;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  dir = tempDir();
  const file = path.join(dir, "tenants.yaml");
  for (const name of ["ann", "bob"]) {
    tokens[name] = (await addTenant(file, name)).token;
    fs.writeFileSync(
      path.join(dir, name, "people", "Mother.md"),
      `---\nkeywords: [mother]\n---\n## who\n${name.toUpperCase()}-SECRET\n`,
    );
  }
  api = tenantApi({ tenants: file, hosts: ["127.0.0.1"], port: 8766, warn: () => {} });
  mcp = tenantMcp({ tenants: file, version: "0", loopback: true, warn: () => {} });
});
afterAll(async () => {
  await api.close();
  await mcp.close();
  removeDir(dir);
});

const bearer = (name: string) => ({ authorization: `Bearer ${tokens[name]}` });

describe("the editor's API of tenants", () => {
  test("each token reads its own tenant's card of a name both hold", async () => {
    for (const name of ["ann", "bob"]) {
      const res = await api.fetch(apiRequest("GET", "/api/cards/people/Mother", undefined, bearer(name)));
      expect(res.status).toBe(200);
      const text = JSON.stringify(await res.json());
      expect(text).toContain(`${name.toUpperCase()}-SECRET`);
      expect(text).not.toContain(`${name === "ann" ? "BOB" : "ANN"}-SECRET`);
    }
  });

  test("a write with one token lands in that tenant's vault only", async () => {
    const card = {
      kind: "people",
      key: "Neighbour",
      title: "Neighbour",
      keywords: ["neighbour"],
      body: "## who\nNext door.",
    };
    const res = await api.fetch(apiRequest("POST", "/api/cards", card, bearer("ann")));
    expect(res.status).toBe(201);
    expect(fs.existsSync(path.join(dir, "ann", "people", "Neighbour.md"))).toBe(true);
    expect(fs.existsSync(path.join(dir, "bob", "people", "Neighbour.md"))).toBe(false);
  });

  test("no token, a wrong one, or another tenant's prefix is refused alike", async () => {
    const asked = [
      apiRequest("GET", "/api/cards"),
      apiRequest("GET", "/api/cards", undefined, { authorization: "Bearer not-a-tenant-000000" }),
      apiRequest("GET", "/t/bob/api/cards", undefined, bearer("ann")),
    ];
    for (const req of asked) expect((await api.fetch(req)).status).toBe(401);
    const own = await api.fetch(apiRequest("GET", "/t/ann/api/cards", undefined, bearer("ann")));
    expect(own.status).toBe(200);
  });

  test("a Host the server does not serve is refused before any tenant is looked at", async () => {
    const req = apiRequest("GET", "/api/cards", undefined, { ...bearer("ann"), host: "evil.example" });
    expect((await api.fetch(req)).status).toBe(403);
    expect(API_HOST).toBe("127.0.0.1:8766");
  });
});

function rpc(body: unknown, headers: Record<string, string>, pathname = "/mcp"): Request {
  return new Request(`http://127.0.0.1:8767${pathname}`, {
    method: "POST",
    headers: {
      host: "127.0.0.1:8767",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

describe("MCP over HTTP of tenants", () => {
  test("write_card writes into the vault of the token that called it", async () => {
    const call = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "write_card",
        arguments: { mode: "create", kind: "places", title: "The bakery", keywords: ["bakery"] },
      },
    };
    const res = await mcp.fetch(rpc(call, { "x-lorecards-token": tokens.bob! }, "/t/bob/mcp"));
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).not.toContain('"isError":true');
    expect(fs.existsSync(path.join(dir, "bob", "places", "The bakery.md"))).toBe(true);
    expect(fs.existsSync(path.join(dir, "ann", "places", "The bakery.md"))).toBe(false);
  });

  test("read_card with one token never reads the other tenant's card", async () => {
    const call = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "read_card", arguments: { name: "Mother" } },
    };
    const res = await mcp.fetch(rpc(call, bearer("ann")));
    const text = JSON.stringify(await res.json());
    expect(text).toContain("ANN-SECRET");
    expect(text).not.toContain("BOB-SECRET");
    expect((await mcp.fetch(rpc(call, bearer("ann"), "/t/bob/mcp"))).status).toBe(401);
  });
});
