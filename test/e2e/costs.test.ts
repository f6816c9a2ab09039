/**
 * What the model sees and what it costs, end to end: the compiled gateway in front of an upstream that
 * caches prefixes as the providers do (bench/_prefix-cache.ts: Anthropic only at breakpoints, OpenAI
 * automatically) and reports usage in their shapes, JSON and event streams; the official Anthropic and
 * OpenAI clients in front of it; `lorecards stats` reading what was recorded. Shown here: cards placed
 * where their authors asked and the conversation kept append-only, at most 4 breakpoints with the
 * client's own kept, `prompt_cache_key` set, the stream reaching the client byte for byte while its
 * usage is read, and totals that add up to what the upstream billed, with the card that broke the
 * cache named.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import {
  anthropicPrompt,
  automaticCache,
  breakpointCache,
  type CacheUsage,
  openaiPrompt,
} from "../../bench/_prefix-cache.ts";
import { countBreakpoints } from "../../src/gateway/_cache-steward.ts";
import type { StatsReport } from "../../src/state/index.ts";
import type { Wire } from "../../src/wire.ts";
import {
  anthropicMessage,
  anthropicStream,
  openaiCompletion,
  openaiStream,
} from "../gateway/usage-shapes.ts";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { type GatewayProcess, startGatewayBinary } from "../support/gateway-binary.ts";
import { protocolNamed } from "../support/protocols.ts";
import { type CardFile, makeVault, removeDir, tempDir } from "../support/vault.ts";

const CARDS: CardFile[] = [
  {
    dir: "things",
    key: "the Premise",
    keywords: ["premise"],
    body: `A harbour town where the tide keeps time. ${"The bells ring at each turn of the tide. ".repeat(8)}\n`,
    extra: "context: always\n",
  },
  { dir: "people", key: "Alice", keywords: ["alice"], body: "The user's sister, a lighthouse keeper.\n" },
  {
    dir: "things",
    key: "the Oracle",
    keywords: ["oracle"],
    body: "Speaks only in questions.\n",
    extra: "depth: 6\nrole: system\n",
  },
];

interface Billed {
  api: "anthropic" | "openai";
  conversation: string;
  usage: CacheUsage;
  output: number;
}

interface Exchange {
  path: string;
  body: Record<string, unknown>;
  /** Exactly the bytes the upstream answered. */
  answer: string;
}

/** An upstream that caches as the providers do and says so in their usage fields. */
function startCachingUpstream() {
  const caches = { anthropic: breakpointCache(), openai: automaticCache() };
  const billed: Billed[] = [];
  const exchanges: Exchange[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const body = (await req.json()) as Record<string, unknown>;
      const api = path === "/v1/messages" ? "anthropic" : "openai";
      const prompt = api === "anthropic" ? anthropicPrompt(body) : openaiPrompt(body);
      if (prompt.refused || prompt.unreadable.length > 0)
        return Response.json({ error: prompt.refused ?? prompt.unreadable.join("; ") }, { status: 400 });
      const usage = caches[api].use(prompt);
      const conversation = String(req.headers.get("x-test-conversation"));
      billed.push({ api, conversation, usage, output: 5 });
      const stream = body.stream === true;
      const answer = answerOf(api, usage, stream, body);
      exchanges.push({ path, body, answer });
      return new Response(answer, {
        headers: { "content-type": stream ? "text/event-stream" : "application/json" },
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, billed, exchanges, stop: () => server.stop(true) };
}

function answerOf(
  api: "anthropic" | "openai",
  u: CacheUsage,
  stream: boolean,
  body: Record<string, unknown>,
) {
  const text = "Noted.";
  if (api === "anthropic") {
    const usage = {
      input_tokens: u.uncached,
      cache_creation_input_tokens: u.written["5m"] + u.written["1h"],
      cache_read_input_tokens: u.read,
      output_tokens: 5,
    };
    return stream
      ? anthropicStream(text, usage, { output_tokens: 5 })
      : JSON.stringify(anthropicMessage(text, usage));
  }
  const usage = {
    prompt_tokens: u.input,
    completion_tokens: 5,
    total_tokens: u.input + 5,
    prompt_tokens_details: { cached_tokens: u.read },
  };
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  if (stream) return openaiStream(text, options?.include_usage ? usage : undefined);
  return JSON.stringify(openaiCompletion(text, usage));
}

let home: string;
let vault: string;
let upstream: ReturnType<typeof startCachingUpstream>;
let gateway: GatewayProcess;

beforeAll(async () => {
  const bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  home = tempDir();
  vault = makeVault(CARDS);
  upstream = startCachingUpstream();
  // The fake upstream stands for OpenAI's API here, which takes the key the gateway adds.
  gateway = await startGatewayBinary(bin, vault, upstream.url, home, { args: ["--prompt-cache-key"] });
}, 180_000);
afterAll(async () => {
  await gateway?.stop();
  upstream?.stop();
  removeDir(vault);
  removeDir(home);
});

/** Prompts of a realistic length: what a card placed deep in the history makes the cache miss. */
const LINES = [
  "the premise of the story, please",
  "Alice climbs to the lighthouse",
  "she looks out over the bay",
  "the oracle waits at the top",
  "we ask our question",
  "and walk home in the rain",
].map((line) => `${line}. ${"The wind is up and the sea is grey under a low sky. ".repeat(25)}`);

/** `next` is `previous` plus new messages, as the model reads them (cache hints are not content). */
function continues(
  api: "anthropic" | "openai",
  previous: Record<string, unknown>,
  next: Record<string, unknown>,
) {
  const before = protocolNamed(api).canonical(previous);
  const after = protocolNamed(api).canonical(next);
  return (
    Bun.deepEquals(after.system, before.system) &&
    Bun.deepEquals(after.items.slice(0, before.items.length), before.items)
  );
}

const texts = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("\n")
      : "";

describe("a conversation through the compiled gateway, with the official clients", () => {
  test("Anthropic (Claude Code's breakpoints, streamed and not): placed cards stay put, at most 4 breakpoints, the client's kept", async () => {
    const client = new Anthropic({
      apiKey: "sk-ant-e2e",
      baseURL: gateway.url,
      maxRetries: 0,
      defaultHeaders: { "x-lorecards-conversation": "e2e-anthropic", "x-test-conversation": "e2e-anthropic" },
    });
    const mark = { type: "ephemeral" as const };
    const system: Anthropic.TextBlockParam[] = [
      { type: "text", text: "You are a storyteller." },
      { type: "text", text: `House rules. ${"Keep it short and kind. ".repeat(250)}`, cache_control: mark },
    ];
    const history: Anthropic.MessageParam[] = [];
    const first = upstream.exchanges.length;
    for (const [i, line] of LINES.entries()) {
      // The newest prompt carries a breakpoint, as Claude Code's does; earlier ones are plain strings.
      const messages: Anthropic.MessageParam[] = [
        ...history,
        { role: "user", content: [{ type: "text", text: line, cache_control: mark }] },
      ];
      let reply = "";
      if (i % 2 === 0) {
        const done = await client.messages.create({ model: "claude-test", max_tokens: 50, system, messages });
        reply = done.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      } else {
        const stream = client.messages.stream({ model: "claude-test", max_tokens: 50, system, messages });
        reply = (await stream.finalMessage()).content.map((b) => (b.type === "text" ? b.text : "")).join("");
      }
      expect(reply).toBe("Noted.");
      history.push({ role: "user", content: line }, { role: "assistant", content: reply });
    }
    const sent = upstream.exchanges.slice(first).map((x) => x.body);
    expect(sent).toHaveLength(LINES.length);
    for (const body of sent) {
      expect(countBreakpoints(body as never)).toBeLessThanOrEqual(4);
      expect((body.system as { cache_control?: unknown }[])[1]!.cache_control).toEqual(mark);
      const messages = body.messages as { content: unknown }[];
      expect((messages.at(-1)!.content as { cache_control?: unknown }[]).at(-1)!.cache_control).toEqual(mark);
    }
    // The always-on card opens the first user message on every request; a breakpoint follows it.
    for (const body of sent.slice(1)) {
      const firstUser = (body.messages as { content: { text: string; cache_control?: unknown }[] }[])[0]!;
      expect(firstUser.content[0]!.text).toContain("### the Premise [thing]");
      expect(firstUser.content[0]!.cache_control).toEqual(mark);
    }
    // The depth card went in on turn 4, six chat messages from the end, and stayed there.
    const oracleAt = (body: Record<string, unknown>) =>
      (body.messages as { content: unknown }[]).findIndex((m) =>
        texts(m.content).includes("### the Oracle [thing]"),
      );
    expect(sent.slice(0, 3).map(oracleAt)).toEqual([-1, -1, -1]);
    const at = oracleAt(sent[3]!);
    expect(at).toBe((sent[3]!.messages as unknown[]).length - 7);
    for (const body of sent.slice(4)) expect(oracleAt(body)).toBe(at);
    // Append-only: apart from the turn that placed it, every request continues the one before.
    for (let i = 1; i < sent.length; i++)
      if (i !== 3) expect(continues("anthropic", sent[i - 1]!, sent[i]!)).toBe(true);
  });

  test("OpenAI chat (streamed with usage): the stream reaches the client byte for byte, prompt_cache_key is set", async () => {
    const first = upstream.exchanges.length;
    const messages: { role: "user" | "assistant"; content: string }[] = [];
    const answers: string[] = [];
    for (const line of LINES.slice(0, 4)) {
      messages.push({ role: "user", content: line });
      const res = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: "Bearer sk-e2e",
          "x-lorecards-conversation": "e2e-openai",
          "x-test-conversation": "e2e-openai",
        },
        body: JSON.stringify({
          model: "gpt-5",
          messages,
          stream: true,
          stream_options: { include_usage: true },
        }),
      });
      answers.push(await res.text());
      messages.push({ role: "assistant", content: "Noted." });
    }
    const exchanges = upstream.exchanges.slice(first);
    expect(answers).toEqual(exchanges.map((x) => x.answer));
    for (const x of exchanges) expect(String(x.body.prompt_cache_key)).toMatch(/^lorecards-[0-9a-f]{32}$/);
    expect(new Set(exchanges.map((x) => x.body.prompt_cache_key)).size).toBe(1);

    // The official client reads the same stream through the gateway, usage chunk and all.
    const client = new OpenAI({
      apiKey: "sk-e2e",
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
      defaultHeaders: { "x-lorecards-conversation": "e2e-openai", "x-test-conversation": "e2e-openai" },
    });
    messages.push({ role: "user", content: LINES[4]! });
    const stream = await client.chat.completions.create({
      model: "gpt-5",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("Noted.");
    expect(usage?.prompt_tokens).toBe(upstream.billed.at(-1)!.usage.input);
  });

  test("lorecards stats adds up to what the upstream billed, per conversation, and names the card that broke the cache", async () => {
    const sum = (conversation: string, f: (b: Billed) => number) =>
      upstream.billed.filter((b) => b.conversation === conversation).reduce((n, b) => n + f(b), 0);
    const stats = (...args: string[]) =>
      runBinary(["stats", "--vault", vault, ...args], { env: { HOME: home } });
    const deadline = Date.now() + 60_000;
    let report: Wire<StatsReport>;
    for (;;) {
      report = JSON.parse((await stats("--json")).stdout) as Wire<StatsReport>;
      if (report.totals.measured >= upstream.billed.length || Date.now() > deadline) break;
      await Bun.sleep(100);
    }
    expect(report.totals.measured).toBe(upstream.billed.length);
    for (const id of ["e2e-anthropic", "e2e-openai"]) {
      const one = report.conversations.find((c) => c.id === id)!;
      expect(one).toMatchObject({
        uncached: sum(id, (b) => b.usage.uncached),
        cache_read: sum(id, (b) => b.usage.read),
        cache_write: sum(id, (b) => b.usage.written["5m"] + b.usage.written["1h"]),
        output: sum(id, (b) => b.output),
      });
    }
    expect(report.totals.cache_read).toBe(upstream.billed.reduce((n, b) => n + b.usage.read, 0));
    for (const key of ["turns", "uncached", "cache_read", "cache_write", "output"] as const)
      expect(report.days.reduce((n, d) => n + d[key], 0)).toBe(report.totals[key]);
    // The depth card went in before the end of what the previous request had cached: the miss is its.
    expect(report.blame.map((b) => b.card)).toContain("thing/the Oracle");
  });
});
