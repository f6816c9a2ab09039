// What an agent writes holds no NUL or other control character, no bidirectional control (text that
// reads other than it is stored) and no half surrogate pair: a title, a section's text and a style
// hint each once accepted them. Each is refused naming the field, the character and where it is.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../src/mcp/index.ts";
import { openVault } from "../../src/vault/index.ts";
import { vaultFiles } from "../support/card-vault.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let root = "";
let client: Client;
let close: () => Promise<void>;
beforeAll(async () => {
  root = makeVault();
  const server = createMcpServer(openVault(root), { version: "test" });
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
  removeDir(root);
});

async function call(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return {
    isError: result.isError === true,
    text: first?.type === "text" ? first.text : "",
    data: result.structuredContent,
  };
}

const CREATE = { mode: "create", kind: "people", title: "Bo" };

describe("write_card refuses", () => {
  test.each([
    [
      "a NUL in a section's text",
      { ...CREATE, sections: [{ heading: "who", text: "a\u0000b" }] },
      "sections[0].text holds U+0000 (a control character) at character 2",
    ],
    [
      "a right-to-left override in a section's text",
      { ...CREATE, sections: [{ heading: "who", text: "pay \u202eto" }] },
      "sections[0].text holds U+202E (a bidirectional control) at character 5",
    ],
    [
      "half a surrogate pair in a section's text",
      { ...CREATE, sections: [{ heading: "who", text: "x\udc00" }] },
      "sections[0].text holds U+DC00 (half a surrogate pair) at character 2",
    ],
    [
      "a right-to-left override in the title",
      { ...CREATE, title: "Bo\u202e" },
      "title holds U+202E (a bidirectional control) at character 3",
    ],
    [
      "a NUL in the recent section",
      { mode: "update_recent", name: "Alice", text: "x\u0000" },
      "text holds U+0000 (a control character) at character 2",
    ],
  ])("%s, naming it, and writes nothing", async (_name, args, detail) => {
    const before = vaultFiles(root);
    const r = await call("write_card", args);
    expect(r.isError).toBe(true);
    expect(r.text).toBe(`invalid_input: ${detail}`);
    expect(vaultFiles(root)).toEqual(before);
  });

  test("line breaks and tabs in a section's text are fine", async () => {
    const r = await call("write_card", {
      ...CREATE,
      title: "Cy",
      sections: [{ heading: "who", text: "one\n\ttwo" }],
    });
    expect(r.isError).toBe(false);
  });
});

describe("style_observe refuses a hint", () => {
  test.each([
    [
      "a NUL in its signal",
      { signal: "no\u0000cap" },
      "the signal holds U+0000 (a control character) at character 3",
    ],
    [
      "a bidirectional control in its signal",
      { signal: "\u202eno cap" },
      "the signal holds U+202E (a bidirectional control) at character 1",
    ],
    [
      "half a surrogate pair in its example",
      { signal: "tiny but mighty", example: "ok \ud800" },
      "the example holds U+D800 (half a surrogate pair) at character 4",
    ],
  ])("with %s, saying why", async (_name, hint, reason) => {
    const r = await call("style_observe", { conversation: "c1", hints: [hint] });
    expect(JSON.stringify(r.data ?? r.text)).toContain(reason);
  });
});
