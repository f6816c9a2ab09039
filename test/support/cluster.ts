/**
 * N compiled gateways on one vault and one Postgres store, behind a real HAProxy (the Debian package)
 * running the deployment example of the docs (docs/examples/haproxy.cfg) with only its ports changed:
 * the configuration users copy is the one the tests run. Each gateway is its own process on a port of
 * its own, so a test can kill one (SIGKILL, as a crash does) and start it again on the same port.
 * Absent HAProxy: the tests skip with one line, or fail under `CI=true` (`prerequisite`).
 */

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO } from "./binary.ts";
import { prerequisite } from "./prerequisites.ts";

const HAPROXY = "/usr/sbin/haproxy";
export const HAPROXY_EXAMPLE = path.join(REPO, "docs", "examples", "haproxy.cfg");

export function haveHaproxy(who: string): boolean {
  return prerequisite(existsSync(HAPROXY), who, "HAProxy is not installed (Debian: apt-get install haproxy)");
}

export async function freePort(): Promise<number> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = server.port!;
  await server.stop(true);
  return port;
}

export interface GatewayNode {
  name: string;
  port: number;
  url: string;
  /** The process id while it runs. */
  pid(): number | undefined;
  /** Everything it said on stderr, across its restarts. */
  stderr(): string;
  /** SIGKILL, as a crash: nothing of its own is flushed or closed. */
  kill9(): Promise<void>;
  /** Starts it again on its port. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  bin: string;
  /** The vault every gateway serves; absent when `args` give `--tenants FILE` instead. */
  vault?: string;
  upstream: string;
  store: string;
  home: string;
  /** Flags for every gateway, after the ones every test gives. */
  args?: string[];
}

function gatewayNode(name: string, port: number, o: ClusterOptions): GatewayNode {
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe"> | undefined;
  let err = "";
  const start = async () => {
    proc = Bun.spawn(
      [
        o.bin,
        "gateway",
        ...(o.vault === undefined ? [] : ["--vault", o.vault]),
        "--upstream",
        o.upstream,
        "--store",
        o.store,
        "--port",
        String(port),
        "--json",
        ...(o.args ?? []),
      ],
      {
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
        env: { PATH: process.env.PATH ?? "", HOME: o.home },
      },
    );
    const p = proc;
    void (async () => {
      for await (const chunk of p.stderr) err += new TextDecoder().decode(chunk);
    })();
    const reader = p.stdout.getReader();
    let out = "";
    while (!out.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`gateway ${name} exited before listening: ${out}${err}`);
      out += new TextDecoder().decode(value);
    }
    reader.releaseLock();
  };
  const end = async (signal: NodeJS.Signals) => {
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill(signal);
    await proc.exited;
  };
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    pid: () => proc?.pid,
    stderr: () => err,
    kill9: () => end("SIGKILL"),
    start,
    stop: () => end("SIGTERM"),
  };
}

/** The example configuration with its frontend on `front` and its servers on `ports`, in order. */
export function haproxyConfig(front: number, ports: readonly number[]): string {
  let i = 0;
  const text = readFileSync(HAPROXY_EXAMPLE, "utf8")
    .replace(/^(\s*bind\s+)127\.0\.0\.1:\d+/m, `$1127.0.0.1:${front}`)
    .replace(
      /^(\s*server\s+\S+\s+)127\.0\.0\.1:\d+/gm,
      (_, head: string) => `${head}127.0.0.1:${ports[i++]}`,
    );
  if (i !== ports.length)
    throw new Error(`${HAPROXY_EXAMPLE} has ${i} servers; the test starts ${ports.length}`);
  return text;
}

export interface Haproxy {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startHaproxy(front: number, ports: readonly number[]): Promise<Haproxy> {
  const dir = mkdtempSync(path.join(tmpdir(), "lorecards-haproxy-"));
  const cfg = path.join(dir, "haproxy.cfg");
  writeFileSync(cfg, haproxyConfig(front, ports));
  const proc = Bun.spawn([HAPROXY, "-db", "-f", cfg], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  let err = "";
  void (async () => {
    for await (const chunk of proc.stderr) err += new TextDecoder().decode(chunk);
  })();
  const url = `http://127.0.0.1:${front}`;
  for (let tries = 0; ; tries++) {
    if (proc.exitCode !== null) throw new Error(`haproxy exited: ${err}`);
    const up = await fetch(`${url}/`, { signal: AbortSignal.timeout(1000) }).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (tries > 500) throw new Error(`haproxy did not listen on ${front}: ${err}`);
    await Bun.sleep(10);
  }
  return {
    url,
    pid: proc.pid,
    async stop() {
      proc.kill();
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Cluster {
  /** HAProxy's address: what clients are given. */
  url: string;
  haproxy: Haproxy;
  nodes: GatewayNode[];
  stop(): Promise<void>;
}

/** `n` gateways (3 in the example) and HAProxy in front of them; resolves once each has answered. */
export async function startCluster(o: ClusterOptions, n = 3): Promise<Cluster> {
  const ports = await Promise.all(Array.from({ length: n + 1 }, () => freePort()));
  const nodes = ports.slice(1).map((port, i) => gatewayNode(`gw${i + 1}`, port, o));
  await Promise.all(nodes.map((node) => node.start()));
  const haproxy = await startHaproxy(ports[0]!, ports.slice(1));
  return {
    url: haproxy.url,
    haproxy,
    nodes,
    async stop() {
      await haproxy.stop();
      await Promise.all(nodes.map((node) => node.stop()));
    },
  };
}
