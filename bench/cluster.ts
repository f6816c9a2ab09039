/**
 * Many gateways on one shared state, under load: three compiled gateways on one vault and one Postgres
 * store behind HAProxy (docs/examples/haproxy.cfg), against one gateway on its SQLite state.db, with
 * the same load in the same run: `--conversations` conversations (1,000) at a time over `--connections`
 * (64) for `--seconds` (300) each, each running `--turns` turns (40) before a new one takes its place,
 * against an upstream that answers at once and checks what it receives (test/support/load.ts). Rounds:
 *
 *   1. the upstream alone (the clients' and the upstream's own cost: the floor of added latency);
 *   2. one gateway on SQLite (`?conversations=` twice the load's, so the cap drops none going on);
 *   3. one gateway on Postgres (what the store costs, without the scale-out);
 *   4. three gateways on Postgres behind HAProxy.
 * Each gateway round has a state of its own (the vault's state.db; a space of its own in one cluster).
 *
 * Each gateway round must end with 0 errors and, against what the upstream saw, no acknowledged turn
 * lost, none twice, none out of order, every request append-only and no card named twice. The figures
 * are the rate of answered requests and the p99 of the latency each adds to the upstream alone, the
 * cluster's as ratios to the single process's. Postgres and HAProxy are the Debian packages, started
 * here in temporary folders on free ports (test/support/postgres.ts, cluster.ts).
 *
 *   bun bench/cluster.ts [--seconds 300] [--conversations 1000] [--connections 64] [--turns 40]
 *                        [--cards 1000]
 */

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startCluster } from "../test/support/cluster.ts";
import { runLoad, startCheckingUpstream, summary, verify } from "../test/support/load.ts";
import { startPostgres } from "../test/support/postgres.ts";
import { generateCards } from "./_gen.ts";
import { cpuSecondsOf, ms, option, ratio, table } from "./_stats.ts";
import { writeVault } from "./gen-vault.ts";

const SECONDS = Number(option("--seconds", "300"));
const CONVERSATIONS = Number(option("--conversations", "1000"));
const CONNECTIONS = Number(option("--connections", "64"));
const CARDS = Number(option("--cards", "1000"));
const TURNS = Number(option("--turns", "40"));
const ROOT = path.resolve(import.meta.dir, "..");
const BIN = path.join(ROOT, "dist", "lorecards");

if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run bun build.ts first`);
const started = await startPostgres("bench/cluster.ts");
if (!started) process.exit(0);
const pg = started;

const work = mkdtempSync(path.join(tmpdir(), "lc-bench-cluster-"));
const vault = path.join(work, "vault");
writeVault(vault, CARDS);
const cards = generateCards(CARDS);
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

/** A gateway of the compiled binary on its own, on a port it picks. */
async function startGateway(store: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const proc = Bun.spawn(
    [BIN, "gateway", "--vault", vault, "--upstream", upstream.url, "--port", "0", "--json", "--store", store],
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
      const g = await startGateway(`sqlite:${file}?conversations=${CONVERSATIONS * 2}`);
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
        vault,
        upstream: upstream.url,
        store: pg.store("three"),
        home,
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
  for (const [name, , start] of SETUPS) {
    const setup = await start();
    results.set(name, await round(name, setup.url, name !== "upstream", setup.processes));
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
    `(${SECONDS} s a round, ${CONVERSATIONS} conversations, ${CONNECTIONS} connections, ${CARDS} cards)`,
  );
} finally {
  await upstream.close();
  await pg.stop();
  rmSync(work, { recursive: true, force: true });
}
