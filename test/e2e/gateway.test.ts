/**
 * End to end: the official `openai` and `@anthropic-ai/sdk` clients, streaming and not, talking to the
 * compiled binary (`dist/lorecards gateway`, LORECARDS_BIN overrides which one), which sits in front of
 * the fake upstream. The binary is built first when it is missing or older than the sources.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { ensureBinary } from "../support/binary.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { messagesPrefix } from "../support/protocols.ts";
import { markersOf, recentHitsOf } from "../support/state.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let bin = "";
const TOKEN = "e2e-token-0123456789";

let upstream: FakeUpstream;
let vault: string;
const gateways: Bun.Subprocess[] = [];

async function startBinary(args: string[]): Promise<string> {
  const proc = Bun.spawn(
    [bin, "gateway", "--vault", vault, "--upstream", upstream.url, "--port", "0", ...args],
    {
      stdout: "ignore",
      stderr: "pipe",
    },
  );
  gateways.push(proc);
  const reader = proc.stderr.getReader();
  let text = "";
  for (;;) {
    const match = /OpenAI clients' base URL[^:]*: (http:\/\/\S+)\/v1/.exec(text);
    if (match) {
      reader.releaseLock();
      return match[1]!;
    }
    const { done, value } = await reader.read();
    if (done) throw new Error(`gateway exited before listening: ${text}`);
    text += new TextDecoder().decode(value);
  }
}

beforeAll(async () => {
  bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  upstream = startFakeUpstream({ reply: () => "Glad to hear it." });
  vault = makeVault();
});

afterAll(async () => {
  for (const g of gateways) g.kill();
  await Promise.all(gateways.map((g) => g.exited));
  await upstream?.close();
  if (vault) removeDir(vault);
});

const last = () => upstream.received[upstream.received.length - 1]!;

describe("the compiled gateway with the official clients", () => {
  let base = "";
  beforeAll(async () => {
    base = await startBinary([]);
  });

  test.each([false, true])(
    "openai chat.completions (stream: %p) gets the card in front of the user message",
    async (stream) => {
      const client = new OpenAI({ apiKey: "sk-e2e", baseURL: `${base}/v1` });
      const messages = [{ role: "user" as const, content: `how did the friday deploy go? (${stream})` }];
      let text = "";
      let injected: string | null;
      if (stream) {
        const { data, response } = await client.chat.completions
          .create({ model: "m", messages, stream: true })
          .withResponse();
        for await (const chunk of data) text += chunk.choices[0]?.delta.content ?? "";
        injected = response.headers.get("x-lorecards-injected");
      } else {
        const { data, response } = await client.chat.completions
          .create({ model: "m", messages })
          .withResponse();
        text = data.choices[0]!.message.content ?? "";
        injected = response.headers.get("x-lorecards-injected");
      }
      expect(text).toBe("Glad to hear it.");
      expect(injected).toBe("the Friday deploy");
      const markers = await markersOf(vault);
      const sent = JSON.parse(last().body) as { messages: { content: string }[] };
      expect(sent.messages[0]!.content.startsWith(markers.open)).toBe(true);
      expect(last().headers.authorization).toBe("Bearer sk-e2e");
    },
  );

  test.each([false, true])(
    "anthropic messages (stream: %p) gets the card in front of the user message",
    async (stream) => {
      const client = new Anthropic({ apiKey: "sk-ant-e2e", baseURL: base });
      const params = {
        model: "m",
        max_tokens: 64,
        messages: [{ role: "user" as const, content: `小林 and Alice ${stream}` }],
      };
      let text = "";
      let injected: string | null;
      if (stream) {
        const { data, response } = await client.messages.create({ ...params, stream: true }).withResponse();
        for await (const event of data) {
          if (event.type === "content_block_delta" && event.delta.type === "text_delta")
            text += event.delta.text;
        }
        injected = response.headers.get("x-lorecards-injected");
      } else {
        const { data, response } = await client.messages.create(params).withResponse();
        text = data.content.map((b) => (b.type === "text" ? b.text : "")).join("");
        injected = response.headers.get("x-lorecards-injected");
      }
      expect(text).toBe("Glad to hear it.");
      expect(injected?.split(",").map(decodeURIComponent).sort()).toEqual(["Alice", "小林"]);
      // The SDK sends the key as x-api-key or as a bearer token depending on its version: either way unchanged.
      expect(last().headers["x-api-key"] ?? last().headers.authorization).toContain("sk-ant-e2e");
      expect(last().body).toContain("### Alice [people]");
    },
  );

  test.each([false, true])(
    "openai responses.create (stream: %p) gets the card in front of the user input",
    async (stream) => {
      const client = new OpenAI({ apiKey: "sk-e2e", baseURL: `${base}/v1` });
      const input = `what about the blue notebook? (${stream})`;
      let text = "";
      let injected: string | null;
      if (stream) {
        const { data, response } = await client.responses
          .create({ model: "m", input, instructions: "be brief", stream: true })
          .withResponse();
        for await (const event of data) if (event.type === "response.output_text.delta") text += event.delta;
        injected = response.headers.get("x-lorecards-injected");
      } else {
        const { data, response } = await client.responses
          .create({ model: "m", input, instructions: "be brief" })
          .withResponse();
        text = data.output_text;
        injected = response.headers.get("x-lorecards-injected");
      }
      expect(text).toBe("Glad to hear it.");
      expect(injected).toBe("the blue notebook");
      const sent = JSON.parse(last().body) as { input: string; instructions: string };
      expect(sent.instructions).toBe("be brief");
      expect(sent.input.startsWith((await markersOf(vault)).open)).toBe(true);
      expect(sent.input.endsWith(`\n\n${input}`)).toBe(true);
    },
  );

  test("what surfaced is in hits.jsonl", async () => {
    expect(
      (await recentHitsOf(vault, 50)).some((h) => h.source === "gateway" && h.keys.includes("Alice")),
    ).toBe(true);
  });
});

describe("the compiled gateway across tool calls and restarts", () => {
  test("anthropic: a tool round trip, cache hints and system blocks keep the request append-only", async () => {
    const base = await startBinary(["--no-log"]);
    const client = new Anthropic({ apiKey: "sk-ant-e2e", baseURL: base, maxRetries: 0 });
    const system = [
      { type: "text" as const, text: "be kind", cache_control: { type: "ephemeral" as const } },
    ];
    const ask: Anthropic.MessageParam = {
      role: "user",
      content: [
        { type: "text", text: "ask Alice about the blue notebook", cache_control: { type: "ephemeral" } },
      ],
    };
    await client.messages.create({ model: "m", max_tokens: 8, system, messages: [ask] });
    const first = last().body;
    const tools: Anthropic.MessageParam[] = [
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "look", input: { q: "Alice" } }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "Alice is in Lyon" }],
      },
    ];
    const { response } = await client.messages
      .create({ model: "m", max_tokens: 8, system, messages: [ask, ...tools], stream: true })
      .withResponse();
    await response.text();
    expect(last().body.startsWith(messagesPrefix(first))).toBe(true);
    const sent = JSON.parse(last().body) as { system: unknown; messages: unknown[] };
    expect(sent.system).toEqual(system);
    expect(sent.messages.slice(1)).toEqual(tools);
  });

  test("openai: a conversation keeps its replay and dedupe across a gateway restart", async () => {
    const headers = { "x-lorecards-conversation": "restart" };
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "developer", content: "be brief" },
      { role: "user", content: "the friday deploy?" },
    ];
    const bodies: string[] = [];
    const injected: (string | null)[] = [];
    for (const next of ["and the deploy after that?", "the blue notebook"]) {
      const base = await startBinary([]);
      const client = new OpenAI({ apiKey: "sk-e2e", baseURL: `${base}/v1`, defaultHeaders: headers });
      const { data, response } = await client.chat.completions
        .create({ model: "m", messages })
        .withResponse();
      injected.push(response.headers.get("x-lorecards-injected"));
      bodies.push(last().body);
      messages.push(
        { role: "assistant", content: data.choices[0]!.message.content },
        { role: "user", content: next },
      );
      const gateway = gateways.pop()!;
      gateway.kill();
      await gateway.exited;
    }
    expect(injected).toEqual(["the Friday deploy", null]);
    expect(bodies[1]!.startsWith(messagesPrefix(bodies[0]!))).toBe(true);
  });
});

describe("the compiled gateway on loopback and the browser", () => {
  test("a rebound host name and a simple cross-site POST are refused; the SDKs' requests are not", async () => {
    const base = await startBinary(["--no-log"]);
    const chat = JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] });
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/v1/chat/completions`, { method: "POST", headers, body: chat });
    expect((await post({ host: "evil.example", "content-type": "application/json" })).status).toBe(403);
    const simple = await post({ origin: "https://a.site", "content-type": "text/plain" });
    expect(simple.status).toBe(403);
    expect((await post({ "content-type": "application/json" })).status).toBe(200);
  });

  test("the banner gives each client family its own base URL", async () => {
    const proc = Bun.spawn([bin, "gateway", "--vault", vault, "--upstream", upstream.url, "--port", "0"], {
      stdout: "ignore",
      stderr: "pipe",
    });
    gateways.push(proc);
    const reader = proc.stderr.getReader();
    let text = "";
    while (!text.includes("Anthropic clients")) text += new TextDecoder().decode((await reader.read()).value);
    reader.releaseLock();
    const origin = /lorecards gateway: (http:\/\/\S+)/.exec(text)![1]!;
    expect(text).toContain(
      `OpenAI clients' base URL (openai SDK, Codex, opencode, SillyTavern): ${origin}/v1\n`,
    );
    expect(text).toMatch(
      new RegExp(`Anthropic clients' base URL \\(Claude Code, Anthropic SDK\\): +${origin}\\n`),
    );
  });
});

describe("the compiled gateway with a token", () => {
  test("clients must send X-Lorecards-Token, which never reaches the upstream", async () => {
    const base = await startBinary(["--token", TOKEN, "--no-log"]);
    const without = new OpenAI({ apiKey: "sk-e2e", baseURL: `${base}/v1`, maxRetries: 0 });
    const status = await without.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "hi" }] })
      .then(
        () => 200,
        (err: { status?: number }) => err.status,
      );
    expect(status).toBe(401);
    const client = new OpenAI({
      apiKey: "sk-e2e",
      baseURL: `${base}/v1`,
      defaultHeaders: { "X-Lorecards-Token": TOKEN },
    });
    const done = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "the cafe" }],
    });
    expect(done.choices[0]!.message.content).toBe("Glad to hear it.");
    expect(last().headers["x-lorecards-token"]).toBeUndefined();
  });

  test("listening beyond localhost without a token is refused", () => {
    const run = Bun.spawnSync(
      [bin, "gateway", "--vault", vault, "--upstream", upstream.url, "--host", "0.0.0.0"],
      {
        stderr: "pipe",
      },
    );
    expect(run.exitCode).toBe(2);
    expect(run.stderr.toString()).toContain("--token");
  });
});
