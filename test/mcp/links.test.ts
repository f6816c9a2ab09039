// The MCP tools never read or write through a symbolic link in the vault (README "Symbolic links"): a
// model asking for a linked card gets an error naming the link, never the text behind it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../src/mcp/index.ts";
import { openVault } from "../../src/vault/index.ts";
import { type LinkedVault, linkedVault, SECRET } from "../support/links.ts";

let linked: LinkedVault;
let client: Client;
let close: () => Promise<void>;
beforeAll(async () => {
  linked = linkedVault();
  const server = createMcpServer(openVault(linked.root), { version: "test" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "lorecards-test", version: "0" });
  await client.connect(clientSide);
  close = async () => {
    await client.close();
    await server.close();
  };
});
afterAll(async () => {
  await close();
  linked.remove();
});

async function call(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return { isError: result.isError === true, text: first?.type === "text" ? first.text : "" };
}

describe("symbolic links and the MCP tools", () => {
  test.each([
    ["a card file that links out, by name", { name: "passwd" }],
    ["a card file that links out, by kind and key", { name: "passwd", kind: "people" }],
    ["a card in a kind directory that links out", { name: "zanzibar", kind: "slang" }],
  ])("read_card on %s is an error naming the link", async (_, args) => {
    const res = await call("read_card", args);
    expect(res.isError).toBe(true);
    expect(res.text).toStartWith("forbidden: ");
    expect(res.text).toContain("is a symbolic link");
    expect(res.text).not.toContain(SECRET);
  });

  test("list_cards lists no card reached through a link", async () => {
    const res = await call("list_cards", {});
    expect(res.isError).toBe(false);
    for (const name of ["passwd", "zanzibar", "Ally"]) expect(res.text).not.toContain(name);
  });

  test("write_card into a kind directory that links out is an error and writes nothing outside", async () => {
    const before = linked.outsideFiles();
    const res = await call("write_card", {
      mode: "create",
      kind: "slang",
      title: "a new word",
      keywords: ["new word"],
    });
    expect(res.isError).toBe(true);
    expect(res.text).toStartWith("forbidden: ");
    expect(linked.outsideFiles()).toEqual(before);
  });

  test("write_card update_recent on a linked card is an error and changes nothing outside", async () => {
    const before = linked.outsideFiles();
    const res = await call("write_card", {
      mode: "update_recent",
      name: "passwd",
      kind: "people",
      text: "x",
    });
    expect(res.isError).toBe(true);
    expect(linked.outsideFiles()).toEqual(before);
  });
});
