// `lorecards stats` as users meet it: the compiled gateway in front of a fake upstream, the official
// OpenAI client talking to it, then the compiled CLI reporting what the upstream billed, with sums
// that add up; its flags, its errors; and the editor's panel in Chromium (skipped without it).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import OpenAI from "openai";
import type { StatsReport } from "../../src/state/index.ts";
import type { Wire } from "../../src/wire.ts";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { type GatewayProcess, startGatewayBinary } from "../support/gateway-binary.ts";
import { makeVault, removeDir, tempDir } from "../support/vault.ts";

/** What the fake upstream bills request `i`: prompt tokens, of them cached, and output. */
const billed = (i: number) => ({
  prompt: 3000 + 500 * i,
  cached: i === 0 ? 0 : 2048 + 256 * i,
  output: 20 + i,
});
const TURNS = 4;

function startUpstream() {
  let n = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      await req.text();
      const b = billed(n++);
      return Response.json({
        id: `chatcmpl-${n}`,
        object: "chat.completion",
        created: 1,
        model: "gpt-4o-2024-08-06",
        choices: [{ index: 0, message: { role: "assistant", content: "Noted." }, finish_reason: "stop" }],
        usage: {
          prompt_tokens: b.prompt,
          completion_tokens: b.output,
          total_tokens: b.prompt + b.output,
          prompt_tokens_details: { cached_tokens: b.cached },
        },
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

let home: string;
let vault: string;
let upstream: ReturnType<typeof startUpstream>;
let gateway: GatewayProcess;

const stats = (...args: string[]) => runBinary(["stats", "--vault", vault, ...args], { env: { HOME: home } });

/** Usage is recorded once each answer has streamed past: wait until the CLI sees all of it. */
async function reportWhenMeasured(turns: number): Promise<Wire<StatsReport>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await stats("--json");
    const report = JSON.parse(r.stdout) as Wire<StatsReport>;
    if (report.totals.measured >= turns || Date.now() > deadline) return report;
    await Bun.sleep(100);
  }
}

beforeAll(async () => {
  const bin = await ensureBinary();
  home = tempDir();
  vault = makeVault();
  upstream = startUpstream();
  gateway = await startGatewayBinary(bin, vault, upstream.url, home);
});
afterAll(async () => {
  await gateway?.stop();
  await upstream?.stop();
  removeDir(vault);
  removeDir(home);
});

describe("lorecards stats after a conversation through the gateway", () => {
  test("the totals are what the upstream billed, the days add up to them, and the conversation is listed", async () => {
    const client = new OpenAI({
      apiKey: "sk-e2e",
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
      defaultHeaders: { "x-lorecards-conversation": "e2e-stats" },
    });
    const messages: OpenAI.ChatCompletionMessageParam[] = [];
    for (const text of ["how is alice?", "and the friday deploy?", "the corner cafe?", "thanks"].slice(
      0,
      TURNS,
    )) {
      messages.push({ role: "user", content: text });
      const done = await client.chat.completions.create({ model: "gpt-4o", messages });
      messages.push({ role: "assistant", content: done.choices[0]!.message.content ?? "" });
    }
    const report = await reportWhenMeasured(TURNS);
    const sum = (f: (b: ReturnType<typeof billed>) => number) =>
      Array.from({ length: TURNS }, (_, i) => f(billed(i))).reduce((a, b) => a + b, 0);
    expect(report.totals).toMatchObject({
      measured: TURNS,
      uncached: sum((b) => b.prompt - b.cached),
      cache_read: sum((b) => b.cached),
      cache_write: 0,
      output: sum((b) => b.output),
      // gpt-4o: a cached token costs half an uncached one.
      cost: sum((b) => b.prompt - b.cached + b.cached / 2),
    });
    for (const key of ["turns", "uncached", "cache_read", "output", "cost", "counterfactual_cost"] as const)
      expect(report.days.reduce((n, d) => n + d[key], 0)).toBeCloseTo(report.totals[key], 6);
    expect(report.conversations).toEqual([
      expect.objectContaining({ id: "e2e-stats", surface: "gateway", measured: TURNS }),
    ]);

    const text = await stats();
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("strip-and-reinject");
    expect(text.stdout).toContain("e2e-stats (gateway)");

    const one = await stats("--conversation", "e2e-stats", "--json");
    expect(one.code).toBe(0);
    const turns = JSON.parse(one.stdout).turns as { usage?: { cache_read: number } }[];
    expect(turns.map((t) => t.usage?.cache_read)).toEqual(
      Array.from({ length: TURNS }, (_, i) => billed(i).cached),
    );
  });

  test.each([
    [["--days", "0"], 2, '--days must be a whole number from 1 to 3660, got "0"'],
    [["--days", "-1"], 2, '--days must be a whole number from 1 to 3660, got "-1"'],
    [["--days", "lots"], 2, '--days must be a whole number from 1 to 3660, got "lots"'],
    [["--days", "99999"], 2, '--days must be a whole number from 1 to 3660, got "99999"'],
    [["--conversation", "nobody"], 3, 'no turns recorded for conversation "nobody"'],
  ])("stats %p exits %d: %s", async (args, code, message) => {
    const r = await stats(...args);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(message);
  });

  test("a vault with nothing recorded says so, and exits 0", async () => {
    const empty = makeVault();
    try {
      const r = await runBinary(["stats", "--vault", empty], { env: { HOME: home } });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("No turns recorded yet.");
      expect(fs.existsSync(empty)).toBe(true);
    } finally {
      removeDir(empty);
    }
  });
});
