// The lore switch set per session by an agent (docs/HOOK-AND-MCP.md "set_lore"), through the compiled
// binary: the official MCP SDK client calls `set_lore` on `lorecards mcp` over stdio, started as Claude
// Code starts it (CLAUDE_CODE_SESSION_ID in its environment) or naming the session; the hook's next
// prompt and session start for that session, and the gateway's requests of a conversation carrying the
// session id (X-Lorecards-Conversation, Claude Code's own session header), show what the model receives.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import OpenAI from "openai";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { startUi } from "../support/editor-browser.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { type GatewayProcess, startGatewayBinary } from "../support/gateway-binary.ts";
import { type CardFile, makeVault, PREMISE, removeDir } from "../support/vault.ts";

setDefaultTimeout(60_000);

const CARDS: CardFile[] = [
  PREMISE,
  { dir: "people", key: "Alice", keywords: ["alice"], body: "The harbourmaster.\n" },
];

let bin = "";
let vault = "";
const clients: Client[] = [];

beforeAll(async () => {
  bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  vault = makeVault(CARDS);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  removeDir(vault);
});

/** `lorecards mcp` over stdio, as Claude Code starts it when `session` is given. */
async function mcp(session?: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--vault", vault],
    env: {
      PATH: process.env.PATH ?? "",
      HOME: vault,
      ...(session !== undefined && { CLAUDE_CODE_SESSION_ID: session }),
    },
  });
  const client = new Client({ name: "lorecards-e2e", version: "0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function setLore(client: Client, args: Record<string, unknown>) {
  const r = (await client.callTool({ name: "set_lore", arguments: args })) as CallToolResult;
  const first = r.content[0];
  return {
    isError: r.isError === true,
    text: first?.type === "text" ? first.text : "",
    data: r.structuredContent,
  };
}

/** The hook as Claude Code runs it for `session`; what it adds to the model's context ("" for nothing). */
async function hook(session: string, event: Record<string, unknown>, args: string[] = []): Promise<string> {
  const r = await runBinary(["hook", "--vault", vault, ...args], {
    stdin: JSON.stringify({ session_id: session, cwd: "/tmp", ...event }),
    env: { HOME: vault },
  });
  expect(r.code).toBe(0);
  return r.stdout === "" ? "" : JSON.parse(r.stdout).hookSpecificOutput.additionalContext;
}

const prompt = (text: string) => ({ hook_event_name: "UserPromptSubmit", prompt: text });
const sessionStart = (source: string) => ({ hook_event_name: "SessionStart", source });

describe("set_lore in a Claude Code session, read by the hook", () => {
  test("declared: the session's next prompt brings no card by its words; another session is not switched", async () => {
    const agent = await mcp("cc-declared");
    const answer = await setLore(agent, { lore: "declared" });
    expect(answer.isError).toBe(false);
    expect(answer.data).toMatchObject({ session: "cc-declared", lore: "declared" });
    expect(answer.data!.detail).toContain("only the always-on cards and the cards asked for by name");
    const declared = await hook("cc-declared", prompt("How is Alice?"));
    expect(declared).toContain("### the Premise");
    expect(declared).not.toContain("### Alice");
    expect(await hook("cc-other", prompt("How is Alice?"))).toContain("### Alice");
  });

  test("none: nothing at the session's start, nothing with its prompts", async () => {
    const agent = await mcp("cc-none");
    await setLore(agent, { lore: "none" });
    expect(await hook("cc-none", sessionStart("compact"))).toBe("");
    expect(await hook("cc-none", prompt("How is Alice? The premise?"))).toBe("");
    expect(await hook("cc-fresh", sessionStart("startup"))).toContain("### the Premise");
  });

  test("the session's switch wins over the hook's --lore, and unset gives the flag its say back", async () => {
    const agent = await mcp("cc-flag");
    await setLore(agent, { lore: "auto" });
    expect(await hook("cc-flag", prompt("How is Alice?"), ["--lore", "none"])).toContain("### Alice");
    const unset = await setLore(agent, { lore: "unset" });
    expect(unset.data).toMatchObject({ session: "cc-flag", lore: null });
    expect(await hook("cc-flag", prompt("And Alice now?"), ["--lore", "none"])).toBe("");
  });

  test("without a Claude Code session and none named, set_lore says what it needs", async () => {
    const agent = await mcp();
    const r = await setLore(agent, { lore: "none" });
    expect(r.isError).toBe(true);
    expect(r.text).toStartWith("invalid_input: set_lore needs a session");
    const typo = await setLore(agent, { lore: "off", session: "s" });
    expect(typo.isError).toBe(true);
  });
});

describe("set_lore read by the gateway", () => {
  let upstream: FakeUpstream;
  let gateway: GatewayProcess;
  let agent: Client;
  beforeAll(async () => {
    upstream = startFakeUpstream({ reply: () => "Noted." });
    gateway = await startGatewayBinary(bin, vault, upstream.url, vault);
    agent = await mcp();
  });
  afterAll(async () => {
    await gateway?.stop();
    await upstream?.close();
  });

  /** One OpenAI chat request of conversation `id` (its earlier turns, then `text`); what the model received. */
  async function chat(id: string, texts: string[], headers: Record<string, string> = {}): Promise<string> {
    const client = new OpenAI({ apiKey: "sk-e2e", baseURL: `${gateway.url}/v1` });
    const messages = texts.flatMap((content, i) => [
      ...(i > 0 ? [{ role: "assistant" as const, content: "Noted." }] : []),
      { role: "user" as const, content },
    ]);
    const at = upstream.received.length;
    await client.chat.completions.create(
      { model: "m", messages },
      { headers: { "X-Lorecards-Conversation": id, ...headers } },
    );
    return upstream.received[at]!.body;
  }

  test("a conversation named by X-Lorecards-Conversation takes its session's switch; the request's header still wins", async () => {
    await setLore(agent, { session: "draft-7", lore: "declared" });
    const body = await chat("draft-7", ["How is Alice?"]);
    expect(body).toContain("### the Premise");
    expect(body).not.toContain("### Alice");
    const again = await chat("draft-7", ["How is Alice?", "Alice, again?"], { "X-Lorecards-Lore": "auto" });
    expect(again).toContain("### Alice");
    expect(await chat("draft-8", ["How is Alice?"])).toContain("### Alice");
  });

  test("Claude Code through the gateway: its session header carries the session the hook knows", async () => {
    await setLore(agent, { session: "cc-gw", lore: "none" });
    const anthropic = new Anthropic({
      apiKey: "sk-ant-e2e",
      baseURL: gateway.url,
      defaultHeaders: { "x-claude-code-session-id": "cc-gw" },
    });
    const sent = {
      model: "claude-sonnet-4-5",
      max_tokens: 64,
      messages: [{ role: "user" as const, content: "How is Alice?" }],
    };
    const at = upstream.received.length;
    await anthropic.messages.create(sent);
    expect(JSON.parse(upstream.received[at]!.body)).toEqual(sent);
    await setLore(agent, { session: "cc-gw", lore: "unset" });
    await anthropic.messages.create({
      ...sent,
      messages: [
        ...sent.messages,
        { role: "assistant", content: "Noted." },
        { role: "user", content: "And Alice?" },
      ],
    });
    expect(upstream.received[at + 1]!.body).toContain("### Alice");
  });

  test("explain --conversation explains the next turn under the session's switch, unless --lore says another", async () => {
    const explain = async (...flags: string[]) =>
      (
        await runBinary(
          ["explain", "How is Alice?", "--conversation", "draft-7", ...flags, "--vault", vault],
          {
            env: { HOME: vault },
          },
        )
      ).stdout;
    const next = await explain();
    expect(next).toContain("Lore: declared");
    expect(next).toContain("not sent (lore: declared)");
    expect(await explain("--lore", "auto")).toContain("Lore: auto");
  });

  test("the door says the session's switch was in force on the turns it steered", async () => {
    const ui = await startUi(vault);
    try {
      const res = await fetch(`${ui.url}/api/conversations/draft-7`);
      const { turns } = (await res.json()) as { turns: { lore?: string }[] };
      expect(turns.map((t) => t.lore ?? "auto")).toEqual(["declared", "auto"]);
    } finally {
      await ui.stop();
    }
  });
});
