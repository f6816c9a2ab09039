// Style memory's MCP tools as a model meets them: the SDK's own Client over a linked in-memory transport
// to createMcpServer, a real vault and its real style book. The brief answers full, delta or ack; hints
// weigh like one sighting and never skip the two-conversation gate; profile hints refuse labels; the
// admin tool lists, reviews, pins, forgets, pauses and resumes, and an unknown id is not_found.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../src/mcp/index.ts";
import { openStyle } from "../../src/style/index.ts";
import { openVault } from "../../src/vault/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
let root = "";
let client: Client;
let closeAll: () => Promise<void>;

beforeAll(async () => {
  root = makeVault();
  const server = createMcpServer(openVault(root), { version: "test", style: { now: () => T0 } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "lorecards-test", version: "0" });
  await client.connect(clientSide);
  closeAll = async () => {
    await client.close();
    await server.close();
  };
});
afterAll(async () => {
  await closeAll();
  removeDir(root);
});

async function call(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  // biome-ignore lint/suspicious/noExplicitAny: each test asserts the fields it needs.
  const data = result.structuredContent as Record<string, any>;
  return { isError: result.isError === true, text: first?.type === "text" ? first.text : "", data };
}

/** What the gateway or the hook would do with a message the person typed. */
async function personSays(conversation: string, text: string): Promise<void> {
  const book = await openStyle(root, { now: () => T0 });
  try {
    await book.observe(conversation, text);
  } finally {
    await book.close();
  }
}

describe("style memory over MCP", () => {
  test("three style tools are offered beside the card tools, each with a schema", async () => {
    const { tools } = await client.listTools();
    const style = tools.filter((t) => t.name.startsWith("style_"));
    expect(style.map((t) => t.name).sort()).toEqual(["style_admin", "style_brief", "style_observe"]);
    for (const t of style) expect(t.inputSchema.type).toBe("object");
    expect(tools.find((t) => t.name === "style_brief")!.annotations?.readOnlyHint).toBe(true);
  });

  test("a hint is one sighting: active only once seen in a second conversation", async () => {
    const first = await call("style_observe", {
      conversation: "mcp-a",
      hints: [{ signal: "tiny but mighty", example: "tiny but mighty ✨ ship it" }],
    });
    expect(first.isError).toBe(false);
    expect(first.data.hints[0].status).toBe("recorded");
    expect(first.data.hints[0].habit.state).toBe("candidate");
    const again = await call("style_observe", {
      conversation: "mcp-a",
      hints: [{ signal: "tiny but mighty" }],
    });
    expect(again.data.hints[0].habit.state).toBe("candidate");
    const other = await call("style_observe", {
      conversation: "mcp-b",
      hints: [{ signal: "tiny but mighty" }],
    });
    expect(other.data.hints[0].habit.state).toBe("active");
  });

  test("a profile hint keeps a concrete preference and refuses a label or a private fact", async () => {
    const { data } = await call("style_observe", {
      conversation: "mcp-a",
      profile_hints: ["conclusions before details", "the user is anxious and introverted"],
    });
    expect(data.profile_hints[0].status).toBe("recorded");
    expect(data.profile_hints[1].status).toBe("refused");
    expect(data.profile_hints[1].reason.length).toBeGreaterThan(0);
  });

  test("the brief: full, then an ack for the revision held, then a delta once something changed", async () => {
    await personSays("c1", "no cap this is great");
    await personSays("c2", "no cap, ship it");
    const full = await call("style_brief", {});
    expect(full.data.kind).toBe("full");
    expect(full.data.revision).toBeGreaterThan(0);
    expect(full.data.text).toContain("no cap");
    const ack = await call("style_brief", { since: full.data.revision });
    expect(ack.data.kind).toBe("ack");
    expect(ack.data.revision).toBe(full.data.revision);
    await personSays("c1", "yyds 绝绝子");
    await personSays("c3", "yyds!");
    const delta = await call("style_brief", { since: full.data.revision });
    expect(delta.data.kind).toBe("delta");
    expect(delta.data.revision).not.toBe(full.data.revision);
    expect(JSON.stringify(delta.data.added)).toContain("yyds");
  });

  test("admin: list and review, pin, forget, and an unknown id is not_found", async () => {
    const list = await call("style_admin", { action: "list" });
    expect(list.data.learning).toBe(true);
    const tiny = list.data.habits.find((h: { signal: string }) => h.signal === "tiny but mighty");
    expect(tiny).toBeDefined();
    const review = await call("style_admin", { action: "review" });
    expect(review.data.review.map((h: { id: string }) => h.id)).toContain(tiny.id);
    const pinned = await call("style_admin", { action: "pin", id: tiny.id });
    expect(pinned.data.habit.pinned).toBe(true);
    const after = await call("style_admin", { action: "review" });
    expect(after.data.review.map((h: { id: string }) => h.id)).not.toContain(tiny.id);
    const forgot = await call("style_admin", { action: "forget", id: tiny.id });
    expect(forgot.data).toEqual({ forgotten: tiny.id });
    const missing = await call("style_admin", { action: "pin", id: tiny.id });
    expect(missing.isError).toBe(true);
    expect(missing.text).toStartWith("not_found:");
    const noId = await call("style_admin", { action: "forget" });
    expect(noId.isError).toBe(true);
    expect(noId.text).toStartWith("invalid_input:");
  });

  test("pause stops hints and observation until resume", async () => {
    expect((await call("style_admin", { action: "pause" })).data).toEqual({ learning: false });
    const paused = await call("style_observe", { conversation: "mcp-c", hints: [{ signal: "okie dokie" }] });
    expect(paused.data.hints[0].status).toBe("paused");
    await personSays("c9", "okie dokie lol");
    const list = await call("style_admin", { action: "list" });
    expect(list.data.habits.some((h: { signal: string }) => h.signal === "okie dokie")).toBe(false);
    expect((await call("style_admin", { action: "resume" })).data).toEqual({ learning: true });
  });

  test("a hint over the limits is refused by its schema before anything is stored", async () => {
    const long = await call("style_observe", { conversation: "mcp-a", hints: [{ signal: "x".repeat(61) }] });
    expect(long.isError).toBe(true);
    const many = await call("style_observe", {
      conversation: "mcp-a",
      hints: Array.from({ length: 6 }, (_, i) => ({ signal: `phrase ${i}` })),
    });
    expect(many.isError).toBe(true);
  });
});
