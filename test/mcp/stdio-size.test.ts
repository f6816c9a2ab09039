// The stdio server and a message over the 10 MiB a message may take: the SDK's reader threw and the
// server exited (status 0, nothing on stderr), so the client saw "Connection closed" and every later
// call failed. Now the message is answered with a JSON-RPC error naming the cap, and the server stays up.
// The official SDK client talks to `lorecards mcp` in a process of its own.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { idOf, MAX_MESSAGE_BYTES } from "../../src/mcp/_stdio-frames.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const BUN = path.resolve("node_modules/.bin/bun");
let root = "";
let client: Client;
let stderr = "";

beforeAll(async () => {
  root = makeVault();
  const transport = new StdioClientTransport({
    command: BUN,
    args: ["src/main.ts", "mcp", "--vault", root],
    stderr: "pipe",
  });
  transport.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  client = new Client({ name: "lorecards-test", version: "0" });
  await client.connect(transport);
});
afterAll(async () => {
  await client.close();
  removeDir(root);
});

describe("a message larger than a message may take", () => {
  test("is refused with a JSON-RPC error naming the cap, and the server answers the next call", async () => {
    const huge = "x".repeat(MAX_MESSAGE_BYTES + 1000);
    const err = await client.callTool({ name: "read_card", arguments: { name: huge } }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toContain("more than the 10 MiB a message may take");
    const after = await client.callTool({ name: "read_card", arguments: { name: "Alice" } });
    expect(JSON.stringify(after.content)).toContain("Lyon");
    expect(stderr).toBe("");
  }, 60_000);
});

describe("the id an oversized message is answered with", () => {
  test.each([
    [
      "after its params, as the official SDK writes it",
      '{"method":"x","params":{}',
      ',"jsonrpc":"2.0","id":7}',
      7,
    ],
    ["before its params", '{"jsonrpc":"2.0","id":"a-1","method":"x"', "}", "a-1"],
    ["none to be found", '{"method":"x"', "}", null],
  ])("%s", (_name, head, tail, id) => {
    expect(idOf(head, tail)).toBe(id);
  });
});
