/**
 * Many gateways on one shared state, under load: three compiled gateways serving `--tenants` tenants
 * (1,000, each a vault of `--cards` generated cards, 40, and a token: `--tenants FILE`) on one Postgres
 * store behind HAProxy (docs/examples/haproxy.cfg), against one gateway of the same tenants on their
 * SQLite state.db files, with the same load in the same run: `--conversations` conversations (1,000) at
 * a time, slot N the tenant N's, over `--connections` (64) for `--seconds` (300) each, each running
 * `--turns` turns (40) before a new one takes its place, against an upstream that answers at once and
 * checks what it receives (test/support/load.ts). `--tenants 0`: one vault of `--cards` (1,000) cards
 * instead. Rounds:
 *
 *   1. the upstream alone (the clients' and the upstream's own cost: the floor of added latency);
 *   2. one gateway on SQLite (one vault: `?conversations=` twice the load's, so the cap drops none);
 *   3. one gateway on Postgres (what the store costs, without the scale-out);
 *   4. three gateways on Postgres behind HAProxy.
 * Each gateway round has a state of its own (the vaults' state.db; a space of its own in one cluster,
 * one a tenant within it), and begins with one unmeasured request a tenant to each of its gateways,
 * so that opening a tenant (bench/tenants.ts measures it) is not part of the figures.
 *
 * Each gateway round must end with 0 errors and, against what the upstream saw, no acknowledged turn
 * lost, none twice, none out of order, every request append-only and no card named twice. The figures
 * are the rate of answered requests and the p99 of the latency each adds to the upstream alone, the
 * cluster's as ratios to the single process's. Postgres and HAProxy are the Debian packages, started
 * here in temporary folders on free ports (test/support/postgres.ts, cluster.ts).
 *
 *   bun bench/cluster.ts [--seconds 300] [--conversations 1000] [--connections 64] [--turns 40]
 *                        [--tenants 1000] [--cards 40]
 */

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startCluster } from "../test/support/cluster.ts";
import { runLoad, startCheckingUpstream, summary, verify } from "../test/support/load.ts";
import { startPostgres } from "../test/support/postgres.ts";
import { generateCards } from "./_gen.ts";
import { cpuSecondsOf, mb, ms, option, ratio, rssOf, table } from "./_stats.ts";
import { tenantToken, writeTenants, writeVault } from "./gen-vault.ts";

const SECONDS = Number(option("--seconds", "300"));
const CONVERSATIONS = Number(option("--conversations", "1000"));
const CONNECTIONS = Number(option("--connections", "64"));
const TENANTS = Number(option("--tenants", "1000"));
const CARDS = Number(option("--cards", TENANTS > 0 ? "40" : "1000"));
const TURNS = Number(option("--turns", "40"));
const ROOT = path.resolve(import.meta.dir, "..");
const BIN = path.join(ROOT, "dist", "lorecards");

if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run bun build.ts first`);
const started = await startPostgres("bench/cluster.ts");
if (!started) process.exit(0);
const pg = started;

const work = mkdtempSync(path.join(tmpdir(), "lc-bench-cluster-"));
const vault = path.join(work, "vault");
const cards = generateCards(CARDS);
/** What every gateway serves: the tenants' file, or the one vault. */
const served = TENANTS > 0 ? ["--tenants", writeTenants(work, TENANTS, cards)] : ["--vault", vault];
if (TENANTS === 0) writeVault(vault, CARDS);
const tokens = Array.from({ length: TENANTS }, (_, i) => tenantToken(i));
/** A user's line: a card named in one turn of three, in a sentence around it. */
const line = (n: number, t: number): string => {
  const card = cards[(n * 31 + t * 977) % cards.length]!;
  return t % 3 === 0
    ? `Turn ${t}: I ran into ${card.title} at the station, we talked about the weekend.`
    : `Turn ${t}: it rained all afternoon, so I stayed in and read a little.`;
};
const upstream = startCheckingUpstream();
const home = path.join(work, "home");
// Stopped part way (Ctrl-C): the cluster and the folders go too.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    void Promise.allSettled([upstream.close(), pg.stop()]).then(() => {
      rmSync(work, { recursive: true, force: true });
      process.exit(130);
    });
  });

/** CPU seconds used so far by each group of processes (Linux /proc), for the CPU a request costs each. */
type Cpu = Record<string, number>;
const cpuOf = async (groups: Record<string, number[]>): Promise<Cpu> =>
  Object.fromEntries(
    Object.entries(groups).map(([name, pids]) => [
      name,
      // A process gone meanwhile (a database connection closed) counts in its parent's children.
      pids.reduce((t, pid) => t + (cpuSecondsOf(pid, true) || 0), 0),
    ]),
  );

async function round(
  name: string,
  target: string,
  gateway: boolean,
  processes: () => Promise<Record<string, number[]>>,
) {
  process.stderr.write(`bench/cluster.ts: ${name}, ${SECONDS} s...\n`);
  const before = await cpuOf({ ...(await processes()), "clients + upstream": [process.pid] });
  const result = await runLoad({
    target,
    tag: name,
    conversations: CONVERSATIONS,
    connections: CONNECTIONS,
    seconds: SECONDS,
    turns: TURNS,
    line,
    ...(TENANTS > 0 && { tokens }),
  });
  const after = await cpuOf({ ...(await processes()), "clients + upstream": [process.pid] });
  const cpu = Object.fromEntries(
    Object.keys(before).map((k) => [k, ((after[k]! - before[k]!) * 1000) / result.requests]),
  );
  process.stderr.write(
    `  CPU per request: ${Object.entries(cpu)
      .map(([k, v]) => `${k} ${ms(v)}`)
      .join(", ")}\n`,
  );
  const v = verify(result, name, upstream.logs);
  const s = summary(result);
  process.stderr.write(
    `  ${result.requests} requests, ${s.rate.toFixed(0)}/s, p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, ${result.errors} errors` +
      (gateway
        ? `; lost ${v.lost}, twice ${v.duplicated}, out of order ${v.outOfOrder}, not append-only ${v.breaks}, a card twice ${v.twice}`
        : "") +
      `\n${result.errorSamples.map((e) => `  ${e}\n`).join("")}`,
  );
  return { result, cpu };
}

/** One unmeasured request of each tenant to each of `gateways` (HAProxy takes turns among them). */
async function warm(target: string, gateways: number): Promise<void> {
  const queue = Array.from({ length: TENANTS * gateways }, (_, i) => i % TENANTS);
  const one = (i: number) =>
    fetch(`${target}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-lorecards-token": tokens[i]! },
      body: JSON.stringify({ model: "gpt-load", messages: [{ role: "user", content: line(i, 3) }] }),
    }).then((r) => r.arrayBuffer());
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) await one(i);
    }),
  );
}

/** A gateway of the compiled binary on its own, on a port it picks; `store` absent: the default. */
async function startGateway(store?: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const proc = Bun.spawn(
    [
      BIN,
      "gateway",
      ...served,
      "--upstream",
      upstream.url,
      "--port",
      "0",
      "--json",
      ...(store === undefined ? [] : ["--store", store]),
    ],
    { stdout: "pipe", stderr: "inherit", env: { PATH: process.env.PATH ?? "", HOME: home } },
  );
  const reader = proc.stdout.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  reader.releaseLock();
  return {
    url: (JSON.parse(first) as { url: string }).url,
    pid: proc.pid,
    stop: async () => {
      proc.kill();
      await proc.exited;
    },
  };
}

interface Setup {
  url: string;
  processes(): Promise<Record<string, number[]>>;
  stop(): Promise<void>;
}

/** The rounds, each on a state of its own: the SQLite file the vault has, or a space of its own. */
const SETUPS: [string, string, () => Promise<Setup>][] = [
  [
    "upstream",
    "upstream alone",
    async () => ({ url: upstream.url, processes: async () => ({}), stop: async () => {} }),
  ],
  [
    "sqlite",
    "1 gateway, SQLite",
    async () => {
      const file = path.join(vault, ".lorecards", "state.db");
      // Tenants: each its vault's own state.db, as a server of tenants without --store keeps them.
      const g = await startGateway(
        TENANTS > 0 ? undefined : `sqlite:${file}?conversations=${CONVERSATIONS * 2}`,
      );
      return { url: g.url, processes: async () => ({ gateway: [g.pid] }), stop: g.stop };
    },
  ],
  [
    "postgres-1",
    "1 gateway, Postgres",
    async () => {
      const g = await startGateway(pg.store("one"));
      return {
        url: g.url,
        processes: async () => ({ gateway: [g.pid], postgres: await pg.pids() }),
        stop: g.stop,
      };
    },
  ],
  [
    "postgres-3",
    "3 gateways, Postgres, HAProxy",
    async () => {
      const c = await startCluster({
        bin: BIN,
        ...(TENANTS === 0 && { vault }),
        upstream: upstream.url,
        store: pg.store("three"),
        home,
        args: TENANTS > 0 ? served : [],
      });
      return {
        url: c.url,
        processes: async () => ({
          gateways: c.nodes.map((n) => n.pid()!),
          postgres: await pg.pids(),
          haproxy: [c.haproxy.pid],
        }),
        stop: async () => {
          const said = c.nodes.flatMap((n) => n.stderr().split("\n")).filter((l) => l.includes("unchanged"));
          if (said.length > 0)
            process.stderr.write(
              `  passed on unchanged ${said.length} times, e.g.\n${[...new Set(said)]
                .slice(0, 3)
                .map((l) => `    ${l}\n`)
                .join("")}`,
            );
          await c.stop();
        },
      };
    },
  ],
];

try {
  const results = new Map<string, Awaited<ReturnType<typeof round>>>();
  const rss = new Map<string, number>();
  for (const [name, , start] of SETUPS) {
    const setup = await start();
    if (TENANTS > 0 && name !== "upstream") await warm(setup.url, name === "postgres-3" ? 3 : 1);
    results.set(name, await round(name, setup.url, name !== "upstream", setup.processes));
    // The gateways' resident memory at the end of the round, all tenants open.
    const procs = await setup.processes();
    rss.set(
      name,
      [...(procs.gateway ?? []), ...(procs.gateways ?? [])].reduce((t, p) => t + rssOf(p), 0),
    );
    await setup.stop();
  }
  const base = summary(results.get("upstream")!.result);
  const added = (s: { p99: number }) => Math.max(0, s.p99 - base.p99);
  const rows = SETUPS.map(([name, label]) => {
    const { result, cpu } = results.get(name)!;
    const s = summary(result);
    const v = verify(result, name, upstream.logs);
    const checks =
      name === "upstream" ? "-" : `${v.lost} / ${v.duplicated} / ${v.outOfOrder} / ${v.breaks} / ${v.twice}`;
    const cpuText = Object.entries(cpu)
      .map(([k, t]) => `${k} ${ms(t)}`)
      .join(", ");
    return [
      label,
      s.rate.toFixed(0),
      ms(s.p50),
      ms(s.p99),
      name === "upstream" ? "-" : ms(added(s)),
      result.errors,
      checks,
      cpuText,
      name === "upstream" ? "-" : mb(rss.get(name)!),
    ];
  });
  console.log(
    table([
      [
        "",
        "requests/s",
        "p50",
        "p99",
        "p99 added",
        "errors",
        "lost / twice / out of order / not append-only / card twice",
        "CPU per request",
        "gateways' RSS",
      ],
      ...rows,
    ]),
  );
  const one = summary(results.get("sqlite")!.result);
  for (const name of ["postgres-1", "postgres-3"]) {
    const s = summary(results.get(name)!.result);
    console.log(
      `${SETUPS.find(([n]) => n === name)![1]} ÷ 1 gateway on SQLite: throughput ${ratio(s.rate, one.rate)}, ` +
        `p99 added latency ${ratio(added(s), added(one))}`,
    );
  }
  console.log(
    `(${SECONDS} s a round, ${CONVERSATIONS} conversations, ${CONNECTIONS} connections, ` +
      (TENANTS > 0 ? `${TENANTS} tenants of ${CARDS} cards each)` : `${CARDS} cards)`),
  );
} finally {
  await upstream.close();
  await pg.stop();
  rmSync(work, { recursive: true, force: true });
}
