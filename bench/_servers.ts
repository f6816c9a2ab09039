/**
 * The processes and the load of the gateway benchmarks (gateway.ts): a child server that says where it
 * listens, the compiled gateway, the bare Bun proxy that is its floor, a process's memory, and clients
 * that send requests and read each answer to its end. 127.0.0.1 only, every loop bounded.
 */

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { cpuSecondsOf, jitSecondsOf, percentile } from "./_stats.ts";

const ROOT = path.resolve(import.meta.dir, "..");
export const BUN = path.join(ROOT, "node_modules/.bin/bun");
export const CHAT = "/v1/chat/completions";

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

export interface Server {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * A child process that says on stderr where it listens. Its stderr is read to the end (a pipe
 * nobody reads would stall it once full); the last lines are kept for an error message.
 */
export async function startServer(cmd: string[], ready: RegExp): Promise<Server> {
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

/** The gateway on `vault` in front of `upstream`: dist/lorecards when built, else (or with `source`) the source. */
export function startGateway(vault: string, upstream: string, source: boolean): Promise<Server> {
  const bin = path.join(ROOT, "dist", "lorecards");
  const cmd = existsSync(bin) && !source ? [bin] : [BUN, path.join(ROOT, "src/main.ts")];
  return startServer(
    [...cmd, "gateway", "--vault", vault, "--upstream", upstream, "--port", "0", "--no-log"],
    /OpenAI clients' base URL[^:]*: (\S+)\/v1/,
  );
}

/** The bare proxy in front of `upstream`. */
export function startBareProxy(upstream: string): Promise<Server> {
  return startServer([BUN, "-e", BARE_PROXY, upstream], /listening (\S+)/);
}

/** Resident and peak memory of a process in MB (Linux /proc; NaN elsewhere). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1]) / 1024;
    return { rss: kb("VmRSS"), peak: kb("VmHWM") };
  } catch {
    return { rss: Number.NaN, peak: Number.NaN };
  }
}

let conversations = 0;

export interface Sample {
  ttfb: number;
  total: number;
  injected: boolean;
}

/** One request, read to the end; a new conversation unless `conversation` is given. */
export async function once(
  base: string,
  body: string,
  conversation = `bench-${conversations++}`,
): Promise<Sample> {
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
 * `concurrency` clients sending `bodies` in turn until `seconds` have passed or `count` requests
 * were sent; `each` sees every request's number as it completes.
 */
export async function load(
  base: string,
  bodies: readonly string[],
  limit: { seconds?: number; count?: number; concurrency: number },
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
  await Promise.all(Array.from({ length: limit.concurrency }, client));
  return { perSecond: done / ((performance.now() - started) / 1000), done, injected };
}

export type Via = "direct" | "bare" | "gateway";

/** The same body direct, through the bare proxy and through the gateway, one request at a time. */
export async function samplesOf(
  bases: Partial<Record<Via, string>>,
  body: (i: number) => string,
  limit: { count?: number; seconds?: number },
  during: () => void = () => {},
): Promise<Partial<Record<Via, Sample[]>>> {
  const samples: Partial<Record<Via, Sample[]>> = {};
  for (const via of Object.keys(bases) as Via[]) samples[via] = [];
  const deadline = performance.now() + (limit.seconds ?? Number.POSITIVE_INFINITY) * 1000;
  for (let i = 0; i < (limit.count ?? Number.POSITIVE_INFINITY) && performance.now() < deadline; i++) {
    during();
    for (const [via, base] of Object.entries(bases) as [Via, string][])
      samples[via]!.push(await once(base, body(i)));
  }
  return samples;
}

/** `p`th percentile of `via`'s samples minus direct's, of the time to the first byte or to the end. */
export function added(
  samples: Partial<Record<Via, Sample[]>>,
  via: Via,
  p: number,
  of: "ttfb" | "total",
): number {
  const q = (v: Via) =>
    percentile(
      samples[v]!.map((s) => s[of]),
      p,
    );
  return q(via) - q("direct");
}

export interface Target {
  server: { url: string; pid?: number };
  bodies: readonly string[];
  rates: number[];
  /** Requests sent and CPU seconds the server spent on them, over all rounds. */
  done: number;
  cpu: number;
  injected: number;
  /**
   * The warm-up's requests and the CPU seconds they cost (a fresh server compiles its code meanwhile),
   * and whether its JIT had gone quiet by the end of it (`settled`; false when the cap came first).
   */
  warm: { done: number; cpu: number; settled?: boolean };
}

export const target = (server: Target["server"], bodies: readonly string[]): Target => ({
  server,
  bodies,
  rates: [],
  done: 0,
  cpu: 0,
  injected: 0,
  warm: { done: 0, cpu: 0 },
});

/** Requests of one step of a warm-up, and the JIT's share of a step's CPU below which it is quiet. */
const WARM_STEP = 2000;
const JIT_QUIET = 0.02;
/** A warm-up sends at most this many times its least, for a JIT that never goes quiet. */
const WARM_CAP = 20;

/**
 * The steady state of a long-running server: after a second of load and at least `least` requests,
 * steps of WARM_STEP until two steps in a row spent under JIT_QUIET of their CPU in the JIT's threads
 * (JavaScriptCore compiles hot code in the background, and recompiles it as what it sees changes: the
 * gateway's request path took it 40,000 to 60,000 requests, during which its compiling cost a quarter
 * of the CPU a request cost; 10,000 requests, the warm-up before, measured some of that as the
 * gateway's). A server without a pid (one measured from outside) is warmed for `least` requests.
 */
async function warmUp(t: Target, least: number, seconds: number, concurrency: number): Promise<void> {
  const pid = t.server.pid;
  const cpu = pid === undefined ? 0 : cpuSecondsOf(pid);
  let done = (await load(t.server.url, t.bodies, { seconds: Math.min(1, seconds), concurrency })).done;
  done += (await load(t.server.url, t.bodies, { count: least, concurrency })).done;
  let settled: boolean | undefined;
  if (pid !== undefined) {
    settled = false;
    for (let quiet = 0; quiet < 2 && done < WARM_CAP * Math.max(least, WARM_STEP); ) {
      const [c0, j0] = [cpuSecondsOf(pid), jitSecondsOf(pid)];
      done += (await load(t.server.url, t.bodies, { count: WARM_STEP, concurrency })).done;
      const share = (jitSecondsOf(pid) - j0) / Math.max(cpuSecondsOf(pid) - c0, 0.01);
      quiet = share < JIT_QUIET ? quiet + 1 : 0;
      settled = quiet === 2;
    }
  }
  t.warm = { done, cpu: pid === undefined ? 0 : cpuSecondsOf(pid) - cpu, settled };
}

/**
 * `targets` measured in turns (`rounds` of `seconds` each, each after its warm-up: `warmUp`), so that
 * whatever else the machine does weighs on all alike; beside each rate, the CPU its server spent per
 * request (all its threads), which moves less with the machine's load. What the warm-up cost is kept too.
 */
export async function measureInTurns(
  targets: Target[],
  turns: { rounds: number; seconds: number; concurrency: number; warm?: number },
): Promise<void> {
  const { rounds, seconds, concurrency } = turns;
  // A long-running server has met every kind of request it is measured with, mixed. Warmed on one
  // kind and then measured in turns on another, a gateway's JIT recompiled at each turn (0-23 µs a
  // no-card request in the round after an injecting one): each server is first warmed on all its
  // rows' bodies interleaved, then on each row's own until its JIT is quiet (`warmUp`).
  for (const url of new Set(targets.map((t) => t.server.url))) {
    const lists = targets.filter((t) => t.server.url === url).map((t) => t.bodies);
    if (lists.length < 2) continue;
    const longest = Math.max(...lists.map((l) => l.length));
    const mixed = Array.from({ length: longest }, (_, i) => lists.map((l) => l[i % l.length]!)).flat();
    await load(url, mixed, { count: (turns.warm ?? 0) * lists.length, concurrency });
  }
  for (const t of targets) await warmUp(t, turns.warm ?? 0, seconds, concurrency);
  for (let round = 0; round < rounds; round++) {
    for (const t of targets) {
      const pid = t.server.pid;
      const cpu = pid === undefined ? 0 : cpuSecondsOf(pid);
      const r = await load(t.server.url, t.bodies, { seconds, concurrency });
      if (pid !== undefined) t.cpu += cpuSecondsOf(pid) - cpu;
      t.rates.push(r.perSecond);
      t.done += r.done;
      t.injected += r.injected;
    }
  }
}
