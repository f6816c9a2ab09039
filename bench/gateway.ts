/**
 * Gateway benchmarks, 127.0.0.1 only, every loop bounded. The gateway runs as its own process
 * (dist/lorecards when it exists, else `bun src/main.ts`; `--source` forces the latter), in front of
 * a fake upstream that answers at once. Its floor, measured in the same run, is a bare Bun proxy: a
 * few lines of Bun.serve + fetch forwarding to the same upstream (BARE_PROXY below), which is what
 * any proxy written on this runtime costs.
 *
 *   1. request rate at 32 concurrent connections, the gateway and the bare proxy measured in turns
 *      (`--rounds` of `--seconds` each, medians), with bodies that fire cards (every request injects,
 *      each a new conversation, so each one commits its state) and with one that names no card; and
 *      the CPU each process spent per request;
 *   2. added latency (p50/p99 of the gateway minus direct to the upstream), one request at a time;
 *   3. RSS of the gateway after `--rss-requests` injecting requests, at each of `--sizes` cards;
 *   4. at the largest size, added latency while another process saves a card every 100 ms (a temp
 *      file renamed over the card, as an editor saves);
 *   5. prefix stability over a scripted 30-turn conversation, replay vs plain per-turn injection.
 *
 *   bun bench/gateway.ts [--sizes 1000,100000] [--seconds 2] [--rounds 3] [--requests 400]
 *                        [--rss-requests 10000] [--edit-seconds 10] [--vaults DIR] [--source]
 *
 * Generated vaults live under `--vaults DIR` (shared with the other scripts by bench/run.ts) or a
 * temp directory; a 100k-card vault takes a while to write and to index the first time.
 */

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createHandler, vaultDeps } from "../src/gateway/index.ts";
import { startFakeUpstream } from "../test/support/fake-upstream.ts";
import { type GenCard, generateCards, sampleWindow } from "./_gen.ts";
import { type GoalRow, reportGoals } from "./_goals.ts";
import { cpuSecondsOf, mb, ms, option, percentile, table } from "./_stats.ts";
import { vaultsDir, workload } from "./_workload.ts";

const SIZES = option("--sizes", "1000,100000").split(",").map(Number);
const SECONDS = Number(option("--seconds", "2"));
const ROUNDS = Number(option("--rounds", "3"));
const REQUESTS = Number(option("--requests", "400"));
const RSS_REQUESTS = Number(option("--rss-requests", "10000"));
const EDIT_SECONDS = Number(option("--edit-seconds", "10"));
const CONCURRENCY = 32;
const ROOT = path.resolve(import.meta.dir, "..");
const BUN = path.join(ROOT, "node_modules/.bin/bun");
const CHAT = "/v1/chat/completions";

const GOAL = { injecting: 0.5, noCard: 0.85, rssMB: 150, flatShare: 0.1, editP99: 5 } as const;

/** The floor of the rate rows: what a proxy on this runtime costs with nothing of ours in it. */
const BARE_PROXY = `
const upstream = process.argv.at(-1);
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, async fetch(req) {
  const url = new URL(req.url);
  const res = await fetch(upstream + url.pathname + url.search, {
    method: req.method, headers: req.headers, body: req.body, decompress: false, redirect: "manual" });
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers: res.headers });
} });
console.error("listening " + server.url.origin);
`;

interface Server {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * A child process that says on stderr where it listens. Its stderr is read to the end (a pipe
 * nobody reads would stall it once full); the last lines are kept for an error message.
 */
async function startServer(cmd: string[], ready: RegExp): Promise<Server> {
  const proc = Bun.spawn(cmd, { stderr: "pipe", stdout: "ignore" });
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const m = ready.exec(text);
    if (m) {
      void (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          text = (text + decoder.decode(value)).slice(-4000);
        }
      })();
      return {
        url: m[1]!,
        pid: proc.pid,
        stop: async () => {
          proc.kill();
          await proc.exited;
        },
      };
    }
    const { done, value } = await reader.read();
    if (done) throw new Error(`${cmd.join(" ")} did not start: ${text}`);
    text += decoder.decode(value);
  }
}

function startGateway(vault: string, upstream: string): Promise<Server> {
  const bin = path.join(ROOT, "dist", "lorecards");
  const cmd =
    existsSync(bin) && !process.argv.includes("--source") ? [bin] : [BUN, path.join(ROOT, "src/main.ts")];
  return startServer(
    [...cmd, "gateway", "--vault", vault, "--upstream", upstream, "--port", "0", "--no-log"],
    /OpenAI clients' base URL[^:]*: (\S+)\/v1/,
  );
}

/** Resident and peak memory of a process in MB (Linux /proc; NaN elsewhere). */
function memoryOf(pid: number): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1]) / 1024;
    return { rss: kb("VmRSS"), peak: kb("VmHWM") };
  } catch {
    return { rss: Number.NaN, peak: Number.NaN };
  }
}

/** A chat of three turns naming three cards of `cards` (which cards depends on `seed`). */
function chatBody(cards: readonly GenCard[], seed: number, stream = false): string {
  const messages = sampleWindow(cards, seed).map((content, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content,
  }));
  return JSON.stringify({
    model: "m",
    messages: [{ role: "system", content: "You are a friend." }, ...messages],
    stream,
  });
}

/** A chat that names no card: nothing to inject and, for a new conversation, nothing to store. */
const QUIET_BODY = JSON.stringify({
  model: "m",
  messages: [
    { role: "system", content: "You are a friend." },
    { role: "user", content: "good morning, how are you today?" },
  ],
});

let conversations = 0;

interface Sample {
  ttfb: number;
  total: number;
  injected: boolean;
}

/** One request, read to the end; a new conversation unless `conversation` is given. */
async function once(base: string, body: string, conversation = `bench-${conversations++}`): Promise<Sample> {
  const t0 = performance.now();
  const res = await fetch(`${base}${CHAT}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: "Bearer sk-bench",
      "x-lorecards-conversation": conversation,
    },
    body,
  });
  const reader = res.body!.getReader();
  let chunk = await reader.read();
  const ttfb = performance.now() - t0;
  while (!chunk.done) chunk = await reader.read();
  return { ttfb, total: performance.now() - t0, injected: res.headers.has("x-lorecards-injected") };
}

/**
 * `CONCURRENCY` clients sending `bodies` in turn until `seconds` have passed or `count` requests
 * were sent; `each` sees every request's number as it completes.
 */
async function load(
  base: string,
  bodies: readonly string[],
  limit: { seconds?: number; count?: number },
  each: (done: number) => void = () => {},
): Promise<{ perSecond: number; done: number; injected: number }> {
  const started = performance.now();
  const deadline = started + (limit.seconds ?? Number.POSITIVE_INFINITY) * 1000;
  const count = limit.count ?? Number.POSITIVE_INFINITY;
  let sent = 0;
  let done = 0;
  let injected = 0;
  const client = async () => {
    while (sent < count && performance.now() < deadline) {
      const s = await once(base, bodies[sent++ % bodies.length]!);
      if (s.injected) injected++;
      each(++done);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  return { perSecond: done / ((performance.now() - started) / 1000), done, injected };
}

const pct = (x: number, digits = 0) => `${(x * 100).toFixed(digits)}%`;
const median = (xs: number[]) => percentile(xs, 50);
const goals: GoalRow[] = [];

/** Prints the figure on a line of its own with its goal, and keeps it for the goal table. */
function figure(row: GoalRow, line: string): void {
  console.log(`${line} (goal ${row.goal})${row.met === false ? ": MISSED" : ""}`);
  goals.push(row);
}

interface Target {
  server: Server;
  bodies: readonly string[];
  rates: number[];
  /** Requests sent and CPU seconds the server spent on them, over all rounds. */
  done: number;
  cpu: number;
  injected: number;
}

/**
 * Section 1: the gateway's request rate as a share of the bare proxy's, with the same bodies, the
 * two measured in turns so that whatever else the machine does weighs on both alike. Beside it, the
 * CPU each spent per request (all its threads), which moves less with the machine's load.
 */
async function rates(gateway: Server, bare: Server, chats: readonly string[]): Promise<void> {
  const target = (server: Server, bodies: readonly string[]): Target => ({
    server,
    bodies,
    rates: [],
    done: 0,
    cpu: 0,
    injected: 0,
  });
  const rows = [
    { label: "name cards (each a new conversation)", figure: "rate injecting", goal: GOAL.injecting },
    { label: "name no card", figure: "rate no-card", goal: GOAL.noCard },
  ].map((row, i) => {
    const bodies = i === 0 ? chats : [QUIET_BODY];
    return { ...row, bare: target(bare, bodies), gateway: target(gateway, bodies) };
  });
  const targets = rows.flatMap((r) => [r.bare, r.gateway]);
  for (const t of targets) await load(t.server.url, t.bodies, { seconds: Math.min(1, SECONDS) });
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets) {
      const cpu = cpuSecondsOf(t.server.pid);
      const r = await load(t.server.url, t.bodies, { seconds: SECONDS });
      t.cpu += cpuSecondsOf(t.server.pid) - cpu;
      t.rates.push(r.perSecond);
      t.done += r.done;
      t.injected += r.injected;
    }
  }
  const perRequest = (t: Target) => ms((t.cpu / t.done) * 1000);
  console.log(
    `1. request rate, ${CONCURRENCY} connections, instant upstream, median of ${ROUNDS} rounds of ${SECONDS} s`,
  );
  console.log(
    table([
      ["bodies", "bare proxy", "gateway", "share", "CPU/request: bare", "gateway", "injected"],
      ...rows.map((r) => [
        r.label,
        `${median(r.bare.rates).toFixed(0)}/s`,
        `${median(r.gateway.rates).toFixed(0)}/s`,
        pct(median(r.gateway.rates) / median(r.bare.rates)),
        perRequest(r.bare),
        perRequest(r.gateway),
        `${r.gateway.injected}/${r.gateway.done}`,
      ]),
    ]),
  );
  for (const r of rows) {
    const share = median(r.gateway.rates) / median(r.bare.rates);
    figure(
      {
        figure: `gateway ${r.figure}`,
        value: `${pct(share)} of the bare proxy`,
        goal: `≥ ${pct(r.goal)}`,
        met: share >= r.goal,
      },
      `${r.figure}: ${pct(share)} of bare proxy`,
    );
  }
}

/** Added latency: the same body direct and through `gateway`, one request at a time. */
async function addedLatency(
  gateway: string,
  direct: string,
  body: (i: number) => string,
  limit: { count?: number; seconds?: number },
  during: () => void = () => {},
): Promise<{ p50: number; p99: number; samples: number; injected: number }> {
  const samples: Record<"direct" | "gateway", Sample[]> = { direct: [], gateway: [] };
  const deadline = performance.now() + (limit.seconds ?? Number.POSITIVE_INFINITY) * 1000;
  for (let i = 0; i < (limit.count ?? Number.POSITIVE_INFINITY) && performance.now() < deadline; i++) {
    during();
    samples.direct.push(await once(direct, body(i)));
    samples.gateway.push(await once(gateway, body(i)));
  }
  const q = (p: number) =>
    percentile(
      samples.gateway.map((s) => s.total),
      p,
    ) -
    percentile(
      samples.direct.map((s) => s.total),
      p,
    );
  return {
    p50: q(50),
    p99: q(99),
    samples: samples.gateway.length,
    injected: samples.gateway.filter((s) => s.injected).length,
  };
}

/** Section 2. */
async function latency(gateway: string, direct: string, cards: readonly GenCard[]): Promise<void> {
  console.log(`\n2. added latency, one request at a time, ${REQUESTS} requests, ${cards.length} cards`);
  const rows: string[][] = [["body", "added p50", "added p99", "injected"]];
  for (const stream of [false, true]) {
    await addedLatency(gateway, direct, (i) => chatBody(cards, i, stream), { count: 40 });
    const r = await addedLatency(gateway, direct, (i) => chatBody(cards, i + 40, stream), {
      count: REQUESTS,
    });
    rows.push([stream ? "stream" : "json", ms(r.p50), ms(r.p99), `${r.injected}/${r.samples}`]);
  }
  console.log(table(rows));
}

/**
 * Section 3 at one size: RSS after the gateway's first request (the vault indexed and loaded), then
 * after every tenth of `RSS_REQUESTS` injecting requests. A collector lets RSS swing by tens of MB
 * between two samples, so growth is the median of the second half's samples against the median of
 * the first half's (without the first, taken while caches fill): "flat" is at most 10% more.
 */
async function rssAfterRequests(gateway: Server, cards: readonly GenCard[]): Promise<void> {
  const chats = Array.from({ length: 500 }, (_, i) => chatBody(cards, i));
  const t0 = performance.now();
  await once(gateway.url, chats[0]!);
  const loaded = memoryOf(gateway.pid).rss;
  console.log(`  first request (opens the index): ${ms(performance.now() - t0)}, RSS ${mb(loaded)}`);
  const marks: number[] = [];
  const step = Math.max(1, Math.floor(RSS_REQUESTS / 10));
  const r = await load(gateway.url, chats, { count: RSS_REQUESTS }, (done) => {
    if (done % step === 0) marks.push(memoryOf(gateway.pid).rss);
  });
  const { rss, peak } = memoryOf(gateway.pid);
  console.log(`  RSS every ${step} requests: ${marks.map((x) => x.toFixed(0)).join(" ")} MB`);
  const half = Math.ceil(marks.length / 2);
  const before = median(marks.slice(1, half));
  const growth = median(marks.slice(half)) - before;
  const flat = growth <= GOAL.flatShare * before;
  const size = cards.length;
  const grew = `${growth >= 0 ? "+" : ""}${mb(growth)} from the first half to the second`;
  figure(
    {
      figure: `gateway RSS after ${r.done} requests`,
      cards: size,
      value: `${mb(rss)} (peak ${mb(peak)}; ${grew})`,
      goal: size >= 100_000 ? `≤ ${GOAL.rssMB} MB and flat` : "flat",
      met: flat && (size < 100_000 || rss <= GOAL.rssMB),
    },
    `gateway RSS at ${size.toLocaleString("en")} cards after ${r.done} requests: ${mb(rss)}, peak ${mb(peak)}, ` +
      `${grew} (${r.injected}/${r.done} injected, ${r.perSecond.toFixed(0)}/s)`,
  );
}

/**
 * The editing loop of section 4, in a process of its own (so its file writes never delay a timed
 * request here): saves one of the files given as arguments every 100 ms until stopped, then prints
 * how many saves it made.
 */
const EDITOR = `
const { editCard } = await import(${JSON.stringify(path.join(import.meta.dir, "_workload.ts"))});
const files = process.argv.slice(1);
let edits = 0;
const timer = setInterval(() => editCard(files[edits % files.length], edits++), 100);
process.on("SIGTERM", () => { clearInterval(timer); console.log(edits); process.exit(0); });
`;

/** Section 4: added latency while a card is saved every 100 ms, the way an editor saves. */
async function latencyWhileEditing(
  gateway: string,
  direct: string,
  cards: readonly GenCard[],
  files: readonly string[],
): Promise<void> {
  const editor = Bun.spawn([BUN, "-e", EDITOR, ...files], { stdout: "pipe", stderr: "inherit" });
  let r: Awaited<ReturnType<typeof addedLatency>>;
  try {
    r = await addedLatency(gateway, direct, (i) => chatBody(cards, i), { seconds: EDIT_SECONDS });
  } finally {
    editor.kill("SIGTERM");
    await editor.exited;
  }
  const edits = (await new Response(editor.stdout).text()).trim();
  figure(
    {
      figure: "gateway p99 added latency while cards are edited",
      cards: cards.length,
      value: `${ms(r.p99)} (p50 ${ms(r.p50)}; ${r.samples} requests, ${edits} edits)`,
      goal: `≤ ${GOAL.editP99} ms`,
      met: r.p99 <= GOAL.editP99,
    },
    `p99 added latency at ${cards.length.toLocaleString("en")} cards, a card saved every 100 ms: ${ms(r.p99)} ` +
      `(p50 ${ms(r.p50)}; ${r.samples} requests in ${EDIT_SECONDS} s, ${edits} edits)`,
  );
}

/** Section 5: scripted 30 turns; each user message names one or two cards, most turns fire. */
async function prefixStability(
  vault: string,
  cards: readonly GenCard[],
  replay: boolean,
): Promise<{ reuse: number; minReuse: number; fired: number }> {
  const received: string[] = [];
  const up = startFakeUpstream({ reply: (_b, i) => `Reply ${i}: that is good to know.` });
  const deps = vaultDeps({ vaultRoot: vault, engine: { watch: false }, warn: () => {} });
  const handler = createHandler({
    upstream: new URL(up.url),
    settings: { inject: "user", window: 3, reinjectAfter: 6, budget: 800, log: false, replay },
    deps,
  });
  // A conversation of its own in every run: the vault may be one an earlier run wrote state into.
  const conversation = `prefix-${replay}-${Date.now()}`;
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
      new Request(`http://127.0.0.1${CHAT}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-lorecards-conversation": conversation,
        },
        body: JSON.stringify({ model: "m", messages }),
      }),
    );
    if (res.headers.has("x-lorecards-injected")) fired++;
    const reply = (await res.json()) as { choices: { message: { content: string } }[] };
    received.push(up.received[up.received.length - 1]!.body);
    messages.push({ role: "assistant", content: reply.choices[0]!.message.content });
  }
  await deps.close();
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

const vaults = vaultsDir(process.argv.includes("--vaults") ? option("--vaults", "") : undefined);
const upstream = startFakeUpstream({ reply: () => "That sounds lovely, tell me more about it." });
upstream.received.push = () => 0; // keep memory flat: nothing here reads what the upstream received
const servers: Server[] = [];
try {
  const small = Math.min(...SIZES);
  const smallCards = generateCards(small);
  const smallVault = workload(vaults, small).root;
  const bare = await startServer([BUN, "-e", BARE_PROXY, upstream.url], /listening (\S+)/);
  servers.push(bare);
  const gateway = await startGateway(smallVault, upstream.url);
  servers.push(gateway);
  await once(gateway.url, chatBody(smallCards, 0)); // opens the index
  await rates(
    gateway,
    bare,
    Array.from({ length: 500 }, (_, i) => chatBody(smallCards, i)),
  );
  await latency(gateway.url, upstream.url, smallCards);
  await bare.stop();
  await gateway.stop();
  servers.length = 0;

  console.log(`\n3. gateway RSS after ${RSS_REQUESTS} injecting requests (${CONCURRENCY} connections)`);
  for (const size of SIZES) {
    const started = performance.now();
    const work = workload(vaults, size);
    const cards = size === small ? smallCards : generateCards(size);
    console.log(`${size.toLocaleString("en")} cards (vault ready in ${ms(performance.now() - started)})`);
    const gw = await startGateway(work.root, upstream.url);
    servers.push(gw);
    await rssAfterRequests(gw, cards);
    if (size === Math.max(...SIZES)) {
      console.log(`\n4. added latency at ${size.toLocaleString("en")} cards while cards are edited`);
      await latencyWhileEditing(gw.url, upstream.url, cards, work.cards);
    }
    await gw.stop();
    servers.length = 0;
  }

  const withReplay = await prefixStability(smallVault, smallCards, true);
  const plain = await prefixStability(smallVault, smallCards, false);
  console.log("\n5. prefix stability, 30 turns: share of the previous request that the next one starts with");
  console.log(
    table([
      ["mode", "mean", "min", "turns that injected"],
      ["replay", pct(withReplay.reuse, 1), pct(withReplay.minReuse, 1), `${withReplay.fired}/30`],
      ["plain", pct(plain.reuse, 1), pct(plain.minReuse, 1), `${plain.fired}/30`],
    ]),
  );
  reportGoals("gateway", goals);
} finally {
  for (const s of servers) await s.stop();
  await upstream.close();
}
