/**
 * Gateway benchmarks, 127.0.0.1 only, bounded loops:
 *   1. added latency (time to first byte, total; p50/p99) through the gateway vs direct to the same
 *      fake upstream, streaming and not, on a generated 1k-card vault, every request injecting;
 *   2. throughput at 32 concurrent connections, through vs direct;
 *   3. prefix stability over a scripted 30-turn conversation, replay vs plain per-turn injection.
 *
 *   bun bench/gateway.ts [--requests 400] [--seconds 5]
 *
 * The gateway runs as its own process: dist/lorecards when it exists, else `bun src/main.ts`.
 */

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHandler, vaultDeps } from "../src/gateway/index.ts";
import { startFakeUpstream } from "../test/support/fake-upstream.ts";
import { generateCards, sampleWindow } from "./_gen.ts";
import { ms, percentile, table } from "./_stats.ts";
import { writeVault } from "./gen-vault.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const REQUESTS = arg("--requests", 400);
const SECONDS = arg("--seconds", 5);
const CONCURRENCY = 32;
const ROOT = path.resolve(import.meta.dir, "..");

const vault = mkdtempSync(path.join(os.tmpdir(), "lc-"));
writeVault(vault, 1000);
const cards = generateCards(1000);
const upstream = startFakeUpstream({ reply: () => "That sounds lovely, tell me more about it." });
const slowUpstream = startFakeUpstream({ reply: () => "That sounds lovely.", delayMs: 50 });
slowUpstream.received.push = () => 0;
upstream.received.push = () => 0; // keep memory flat: nothing here reads what the upstream received

function chatBody(seed: number, stream: boolean): string {
  const window = sampleWindow(cards, seed);
  const messages = window.map((content, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content }));
  return JSON.stringify({
    model: "m",
    messages: [{ role: "system", content: "You are a friend." }, ...messages],
    stream,
  });
}

async function spawnGateway(target: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const bin = path.join(ROOT, "dist", "lorecards");
  const cmd = existsSync(bin)
    ? [bin]
    : [path.join(ROOT, "node_modules/.bin/bun"), path.join(ROOT, "src/main.ts")];
  const proc = Bun.spawn(
    [...cmd, "gateway", "--vault", vault, "--upstream", target, "--port", "0", "--no-log"],
    {
      stderr: "pipe",
      stdout: "ignore",
    },
  );
  const reader = proc.stderr.getReader();
  let text = "";
  for (;;) {
    const m = /OpenAI clients' base URL[^:]*: (\S+)\/v1/.exec(text);
    if (m) {
      reader.releaseLock();
      const stop = async () => {
        proc.kill();
        await proc.exited;
      };
      return { url: m[1]!, stop };
    }
    const { done, value } = await reader.read();
    if (done) throw new Error(`gateway did not start: ${text}`);
    text += new TextDecoder().decode(value);
  }
}

interface Sample {
  ttfb: number;
  total: number;
  injected: boolean;
}

async function once(
  base: string,
  body: string,
  conversation: string,
  path = "/v1/chat/completions",
): Promise<Sample> {
  const t0 = performance.now();
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: "Bearer sk-bench",
      "x-lorecards-conversation": conversation,
    },
    body,
  });
  const reader = res.body!.getReader();
  let first = await reader.read();
  const ttfb = performance.now() - t0;
  while (!first.done) first = await reader.read();
  return { ttfb, total: performance.now() - t0, injected: res.headers.has("x-lorecards-injected") };
}

async function latency(gateway: string): Promise<string[][]> {
  const rows: string[][] = [["mode", "path", "TTFB p50", "TTFB p99", "total p50", "total p99", "injected"]];
  for (const stream of [false, true]) {
    const samples: Record<string, Sample[]> = { direct: [], gateway: [] };
    for (let i = 0; i < REQUESTS + 40; i++) {
      const body = chatBody(i, stream);
      for (const [name, base] of [
        ["direct", upstream.url],
        ["gateway", gateway],
      ] as const) {
        const s = await once(base, body, `lat-${stream}-${i}`);
        if (i >= 40) samples[name]!.push(s);
      }
    }
    for (const name of ["direct", "gateway"]) {
      const s = samples[name]!;
      const p = (f: (x: Sample) => number, q: number) => ms(percentile(s.map(f), q));
      rows.push([
        stream ? "stream" : "json",
        name,
        p((x) => x.ttfb, 50),
        p((x) => x.ttfb, 99),
        p((x) => x.total, 50),
        p((x) => x.total, 99),
        `${s.filter((x) => x.injected).length}/${s.length}`,
      ]);
    }
    const d = samples.direct!;
    const g = samples.gateway!;
    const added = (f: (x: Sample) => number) => ms(percentile(g.map(f), 50) - percentile(d.map(f), 50));
    rows.push([
      stream ? "stream" : "json",
      "added (p50)",
      added((x) => x.ttfb),
      "",
      added((x) => x.total),
      "",
      "",
    ]);
  }
  return rows;
}

/** A chat that names no card: nothing to inject and, for a new conversation, nothing to store. */
const quietBody = JSON.stringify({
  model: "m",
  messages: [
    { role: "system", content: "You are a friend." },
    { role: "user", content: "good morning, how are you today?" },
  ],
});

async function throughput(
  base: string,
  label: string,
  path?: string,
  body: (seed: number) => string = (seed) => chatBody(seed, false),
): Promise<number> {
  const deadline = performance.now() + SECONDS * 1000;
  let done = 0;
  const worker = async (w: number) => {
    for (let i = 0; performance.now() < deadline && i < 1_000_000; i++) {
      await once(base, body(w * 1000 + i), `tp-${label}-${w}-${i}`, path);
      done++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  return done / SECONDS;
}

/** Scripted 30 turns; each user message names one or two generated cards, most turns fire. */
async function prefixStability(replay: boolean): Promise<{ reuse: number; minReuse: number; fired: number }> {
  const received: string[] = [];
  const up = startFakeUpstream({ reply: (_b, i) => `Reply ${i}: that is good to know.` });
  const deps = vaultDeps({ vaultRoot: vault, engine: { watch: false }, warn: () => {} });
  const handler = createHandler({
    upstream: new URL(up.url),
    settings: { inject: "user", window: 3, reinjectAfter: 6, budget: 800, log: false, replay },
    deps,
  });
  const messages: { role: string; content: string }[] = [{ role: "system", content: "You are a friend." }];
  let fired = 0;
  for (let turn = 0; turn < 30; turn++) {
    const card = cards[(turn * 37) % cards.length]!;
    const extra = turn % 3 === 0 ? ` and ${cards[(turn * 53 + 7) % cards.length]!.title}` : "";
    messages.push({
      role: "user",
      content: `Today I thought about ${card.title}${extra}. What do you remember?`,
    });
    const res = await handler(
      new Request("http://127.0.0.1/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json", "x-lorecards-conversation": `prefix-${replay}` },
        body: JSON.stringify({ model: "m", messages }),
      }),
    );
    if (res.headers.has("x-lorecards-injected")) fired++;
    const reply = (await res.json()) as { choices: { message: { content: string } }[] };
    received.push(up.received[up.received.length - 1]!.body);
    messages.push({ role: "assistant", content: reply.choices[0]!.message.content });
  }
  deps.close();
  await up.close();
  const shares: number[] = [];
  for (let i = 1; i < received.length; i++) {
    const prev = received[i - 1]!;
    const cur = received[i]!;
    let n = 0;
    while (n < prev.length && prev.charCodeAt(n) === cur.charCodeAt(n)) n++;
    shares.push(n / prev.length);
  }
  return { reuse: shares.reduce((a, b) => a + b, 0) / shares.length, minReuse: Math.min(...shares), fired };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
try {
  const gw = await spawnGateway(upstream.url);
  const slowGw = await spawnGateway(slowUpstream.url);
  try {
    console.log(
      `1. added latency (${REQUESTS} requests each, 1000-card vault, every request a new conversation)`,
    );
    console.log(table(await latency(gw.url)));
    const direct = await throughput(upstream.url, "direct");
    const through = await throughput(gw.url, "gateway");
    // The same bytes to a path the gateway only proxies: the cost of the hop itself, without recall.
    const passthrough = await throughput(gw.url, "passthrough", "/v1/responses-passthrough");
    const quiet = await throughput(gw.url, "quiet", undefined, () => quietBody);
    console.log(`\n2. throughput, ${CONCURRENCY} concurrent connections, ${SECONDS} s each`);
    const slowDirect = await throughput(slowUpstream.url, "slow-direct");
    const slowThrough = await throughput(slowGw.url, "slow-gateway");
    console.log(
      table([
        ["upstream", "direct", "through", "ratio"],
        ["instant", `${direct.toFixed(0)} req/s`, `${through.toFixed(0)} req/s`, pct(through / direct)],
        [
          "instant, chat path, no card named",
          `${direct.toFixed(0)} req/s`,
          `${quiet.toFixed(0)} req/s`,
          pct(quiet / direct),
        ],
        [
          "instant, proxied path (no recall)",
          `${direct.toFixed(0)} req/s`,
          `${passthrough.toFixed(0)} req/s`,
          pct(passthrough / direct),
        ],
        [
          "50 ms",
          `${slowDirect.toFixed(0)} req/s`,
          `${slowThrough.toFixed(0)} req/s`,
          pct(slowThrough / slowDirect),
        ],
      ]),
    );
  } finally {
    await gw.stop();
    await slowGw.stop();
  }
  const withReplay = await prefixStability(true);
  const plain = await prefixStability(false);
  console.log("\n3. prefix stability, 30 turns: share of the previous request that the next one starts with");
  console.log(
    table([
      ["mode", "mean", "min", "turns that injected"],
      ["replay", pct(withReplay.reuse), pct(withReplay.minReuse), `${withReplay.fired}/30`],
      ["plain", pct(plain.reuse), pct(plain.minReuse), `${plain.fired}/30`],
    ]),
  );
} finally {
  await upstream.close();
  await slowUpstream.close();
  rmSync(vault, { recursive: true, force: true });
}
