// Fuzzing the MCP tools through the SDK's own Client over an in-memory transport, so every case runs the
// real schemas and handlers: arguments of the right shape with odd values, wrong types, unknown keys and
// tools. Each call succeeds, or is an `isError` result naming a LoreError code (or the SDK's schema
// refusal), never `internal`; a refused write leaves the vault as it was.
import { describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import type { ErrorCode } from "../../src/errors.ts";
import { cappedLines } from "../../src/mcp/_stdio-frames.ts";
import { createMcpServer } from "../../src/mcp/index.ts";
import { openVault } from "../../src/vault/index.ts";
import { anyString, hugeString, jsonValue, SPECIALS, shapedObject, shortString } from "./_arbitraries.ts";
import {
  announce,
  attempt,
  expectFast,
  expectUntouched,
  fuzz,
  initOddVault,
  ODD_CARDS,
  renewing,
  type Sandbox,
  sandbox,
  timeoutFor,
} from "./_support.ts";

announce("mcp");

const BUDGET = { runs: 1500, ms: 4000 };

const KINDS = ["people", "event", "place", "thing", "slang", "entry", "People", "dragons", " people "];
const NAMES = [
  "Alice",
  "alice",
  "people/Alice",
  "Alice.md",
  "the Friday deploy",
  "yak shaving",
  ...Object.keys(ODD_CARDS),
  ...Object.keys(ODD_CARDS).map((rel) => rel.slice(rel.indexOf("/") + 1, -3)),
];
/** Codes a tool may answer with; `internal` is never one of them. */
const CODES: ErrorCode[] = [
  "invalid_input",
  "invalid_key",
  "unknown_kind",
  "not_found",
  "conflict",
  "parse_error",
  "too_large",
  "forbidden",
];

const name = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 2, arbitrary: shortString },
  { weight: 1, arbitrary: anyString },
);
const term = fc.oneof(
  { weight: 4, arbitrary: shortString },
  { weight: 1, arbitrary: fc.constantFrom(...SPECIALS) },
  { weight: 1, arbitrary: hugeString },
);
const section = shapedObject({
  heading: fc.oneof(
    fc.constantFrom("who", "recent", "stance", "correspondence", "Recent", "## x", "a\nb", "#x"),
    shortString,
  ),
  text: anyString,
});

const writeArgs = shapedObject({
  mode: fc.constantFrom("create", "update_recent"),
  kind: fc.constantFrom(...KINDS),
  title: fc.oneof(name, term),
  key: fc.oneof(name, term),
  keywords: fc.array(term, { maxLength: 5 }),
  aliases: fc.array(term, { maxLength: 3 }),
  sections: fc.array(section, { maxLength: 4 }),
  name,
  text: anyString,
});
/** Arguments the schemas accept (odd strings inside), so the handlers and the vault get exercised. */
const validTerm = fc
  .oneof(shortString, fc.constantFrom(...SPECIALS))
  .filter((t) => t.trim() !== "" && t.length <= 200);
const validText = anyString.filter((t) => t.length <= 64 * 1024 && !/^##[ \t]+\S/m.test(t));
const createArgs = fc.record(
  {
    mode: fc.constant("create"),
    kind: fc.constantFrom("people", "event", "place", "thing", "slang", "entry"),
    title: fc.oneof(fc.constantFrom(...NAMES), validTerm),
    key: validTerm,
    keywords: fc.array(validTerm, { maxLength: 4 }),
    aliases: fc.array(validTerm, { maxLength: 2 }),
    sections: fc.array(
      fc.record({
        heading: fc
          .oneof(fc.constantFrom("who", "recent", "stance", "correspondence"), validTerm)
          .filter((h) => !h.includes("\n") && !h.startsWith("#")),
        text: validText,
      }),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: ["mode", "kind", "title"] },
);
const recentArgs = fc.record(
  {
    mode: fc.constant("update_recent"),
    name: fc.oneof(fc.constantFrom(...NAMES), validTerm),
    text: validText,
    kind: fc.constantFrom(...KINDS),
  },
  { requiredKeys: ["mode", "name", "text"] },
);

const readArgs = shapedObject({ name, kind: fc.constantFrom(...KINDS) });
const listArgs = shapedObject({
  kind: fc.constantFrom(...KINDS),
  offset: fc.oneof(fc.nat(20), fc.constantFrom(-1, 1.5)),
  limit: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constantFrom(0, 1001, 2.5)),
});

const loreArgs = shapedObject({
  lore: fc.constantFrom("auto", "declared", "none", "unset", "off", ""),
  session: fc.oneof(name, term),
});

const call = fc.oneof(
  { weight: 3, arbitrary: fc.record({ tool: fc.constant("write_card"), args: createArgs }) },
  { weight: 3, arbitrary: fc.record({ tool: fc.constant("write_card"), args: recentArgs }) },
  { weight: 3, arbitrary: fc.record({ tool: fc.constant("write_card"), args: writeArgs }) },
  { weight: 2, arbitrary: fc.record({ tool: fc.constant("read_card"), args: readArgs }) },
  { weight: 2, arbitrary: fc.record({ tool: fc.constant("list_cards"), args: listArgs }) },
  { weight: 1, arbitrary: fc.record({ tool: fc.constant("set_lore"), args: loreArgs }) },
  {
    weight: 1,
    arbitrary: fc.record({
      tool: fc.constantFrom("write_card", "read_card", "list_cards", "set_lore", "search", ""),
      args: fc.dictionary(shortString, jsonValue([], 2), { maxKeys: 4 }),
    }),
  },
);

interface Connected {
  box: Sandbox;
  client: Client;
  close(): Promise<void>;
}

async function connect(): Promise<Connected> {
  const box = sandbox(initOddVault);
  const server = createMcpServer(openVault(box.root), { version: "fuzz" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "lorecards-fuzz", version: "0" });
  await client.connect(clientSide);
  return {
    box,
    client,
    close: async () => {
      await client.close();
      await server.close();
      box.remove();
    },
  };
}

function checkResult(result: CallToolResult): void {
  const first = result.content[0];
  const text = first?.type === "text" ? first.text : "";
  if (result.isError !== true) {
    expect(result.structuredContent).toBeDefined();
    expect(JSON.parse(text)).toEqual(result.structuredContent as Record<string, unknown>);
    return;
  }
  if (text.startsWith("MCP error -32602: ")) return; // the SDK refused the arguments or the tool name
  const code = text.slice(0, text.indexOf(":"));
  if (!(CODES as string[]).includes(code))
    throw new Error(`a tool failed without a known code: ${text.slice(0, 500)}`);
}

describe("the MCP tools", () => {
  const connections = renewing(connect);

  test(
    "answer any arguments with a result or a coded error, and a refused write changes nothing",
    async () => {
      await fuzz(
        "mcp/tools",
        fc.asyncProperty(call, async (c) => {
          const { box, client, before } = await connections.take();
          const out = await attempt(
            () => client.callTool({ name: c.tool, arguments: c.args }) as Promise<CallToolResult>,
          );
          await expectFast(out, c.tool);
          if (!out.ok) throw out.error;
          checkResult(out.value);
          expectUntouched(
            box,
            before,
            out.value.isError === true ? `${c.tool} answered an error` : undefined,
          );
        }),
        BUDGET,
      );
    },
    timeoutFor(BUDGET),
  );
});

describe("bugs the fuzzing found, fixed", () => {
  test("update_recent with a `---` line on a card whose opening fence never closes keeps the card's sections", async () => {
    const conn = await connect();
    try {
      const text = "a\n---\nb";
      const result = (await conn.client.callTool({
        name: "write_card",
        arguments: { mode: "update_recent", name: "Unclosed", kind: "people", text },
      })) as CallToolResult;
      expect(result.isError).not.toBe(true);
      const read = (await conn.client.callTool({
        name: "read_card",
        arguments: { name: "Unclosed" },
      })) as CallToolResult;
      const sections = (read.structuredContent as { sections: { heading: string; text: string }[] }).sections;
      expect(sections.find((s) => s.heading === "recent")?.text.trim()).toBe(text);
    } finally {
      await conn.close();
    }
  });

  test("read_card on a card with `enabled: {toString: 0}` is not an internal error", async () => {
    const conn = await connect();
    try {
      const result = (await conn.client.callTool({
        name: "read_card",
        arguments: { name: "Weird" },
      })) as CallToolResult;
      const first = result.content[0];
      expect(first?.type === "text" ? first.text : "").not.toStartWith("internal:");
    } finally {
      await conn.close();
    }
  });
});

describe("the stdio frames", () => {
  // A small cap stands for the 10 MiB one: what matters is lines just under, at and over it.
  const CAP = 64;
  const line = fc.oneof(
    fc.string({ maxLength: CAP }),
    fc.string({ minLength: CAP - 2, maxLength: CAP + 2 }),
    fc.string({ minLength: CAP + 1, maxLength: CAP * 5 }),
  );
  const budget = { runs: 300, ms: 3000 };

  test(
    "pass every line within the cap on, in order, and answer each longer one with one error",
    async () => {
      const property = fc.asyncProperty(
        fc.array(
          line.map((l) => l.replaceAll("\n", " ")),
          { maxLength: 12 },
        ),
        fc.integer({ min: 1, max: 40 }),
        async (lines, chunk) => {
          const input = new PassThrough();
          const answers: string[] = [];
          const out = cappedLines(input, (a) => answers.push(a), CAP);
          const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(""));
          for (let at = 0; at < bytes.length; at += chunk) input.write(bytes.subarray(at, at + chunk));
          input.end();
          const chunks: Buffer[] = [];
          for await (const c of out) chunks.push(c as Buffer);
          const passed = Buffer.concat(chunks).toString("utf8").split("\n").slice(0, -1);
          const within = lines.filter((l) => Buffer.byteLength(l) <= CAP);
          expect(passed).toEqual(within);
          expect(answers).toHaveLength(lines.length - within.length);
          for (const a of answers) expect(JSON.parse(a).error.code).toBe(-32600);
        },
      );
      await fuzz("mcp: stdio frames", property, budget);
    },
    timeoutFor(budget),
  );
});
