/**
 * A real Postgres for a test file: a throwaway cluster in a temporary folder on a free port, made with
 * the Debian package's own tools (`initdb`, `pg_ctl`) and removed afterwards. Never the machine's
 * default cluster. Postgres refuses to run as root, so as root the cluster is made and run as the
 * `postgres` user (`runuser`), in a folder it owns. Absent Postgres: the tests that need it skip with
 * one line on a developer's machine, and fail under `CI=true` (`prerequisite`).
 *
 * Faults are the real thing done to the real server: `pause` stops every process of the cluster
 * (SIGSTOP: the server answers nothing, connections stay open), `restart` stops and starts it
 * (`pg_ctl restart -m fast`: sessions ended, state kept), `down` and `up` do the same with the time
 * between in the test's hands, `cut` ends every client's session from the server side
 * (`pg_terminate_backend`: what a client sees when its connection is cut), and returns once those
 * sessions are gone: the function itself only signals them, so a cut "between" two requests could
 * otherwise land in the middle of the next one on a loaded machine.
 */

import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { prerequisite } from "./prerequisites.ts";

export interface Postgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  port: number;
  /** The store URL of a fresh space (`?space=`), with options appended. */
  store(space: string, params?: string): string;
  /** Runs SQL with psql as the superuser; resolves with its output. */
  psql(sql: string): Promise<string>;
  /** The server's processes: the postmaster first, then its children. */
  pids(): Promise<number[]>;
  pause(): Promise<number[]>;
  resume(pids: number[]): Promise<void>;
  restart(): Promise<void>;
  /** Stops the server (fast shutdown) and starts it again: the database is down in between. */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Ends the sessions of clients named `application` (default: every client but psql). */
  cut(application?: string): Promise<number>;
  stop(): Promise<void>;
}

const ROOT = process.getuid?.() === 0;

/** The newest Debian Postgres server binaries, or undefined. */
function binDir(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(path.join(base, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && path.join(base, versions[0], "bin");
}

async function run(cmd: string[], what: string): Promise<string> {
  const full = ROOT ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd;
  const proc = Bun.spawn(full, { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`${what} failed (${code}): ${err || out}`);
  return out;
}

async function freePort(): Promise<number> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = server.port!;
  await server.stop(true);
  return port;
}

/** Starts a throwaway cluster, or says why not (null: skip; under CI this throws). */
export async function startPostgres(who: string): Promise<Postgres | null> {
  const bin = binDir();
  if (!prerequisite(bin !== undefined, who, "Postgres is not installed (Debian: apt-get install postgresql)"))
    return null;
  const dir = mkdtempSync(path.join(tmpdir(), "lorecards-pg-"));
  if (ROOT)
    chownSync(dir, Number(await Bun.$`id -u postgres`.text()), Number(await Bun.$`id -g postgres`.text()));
  const data = path.join(dir, "data");
  const port = await freePort();
  const pgCtl = (...args: string[]) => run([`${bin}/pg_ctl`, "-D", data, ...args], `pg_ctl ${args[0]}`);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  await run(
    [`${bin}/initdb`, "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"],
    "initdb",
  );
  await pgCtl("-o", options, "-l", path.join(dir, "log"), "-w", "start");
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const pids = async (): Promise<number[]> => {
    const postmaster = Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    const children = (await Bun.$`pgrep -P ${postmaster}`.nothrow().text())
      .trim()
      .split("\n")
      .filter(Boolean);
    return [postmaster, ...children.map(Number)];
  };
  const psql = (sql: string) =>
    run([`${bin}/psql`, "-h", dir, "-p", String(port), "-U", "postgres", "-At", "-c", sql], "psql");
  return {
    url,
    port,
    store: (space, params = "") => `${url}?space=${space}${params ? `&${params}` : ""}`,
    psql,
    pids,
    async pause() {
      const all = await pids();
      for (const pid of all) process.kill(pid, "SIGSTOP");
      return all;
    },
    async resume(all) {
      for (const pid of all) process.kill(pid, "SIGCONT");
    },
    async restart() {
      await pgCtl("-o", options, "-l", path.join(dir, "log"), "-m", "fast", "-w", "restart");
    },
    async down() {
      await pgCtl("-m", "fast", "-w", "stop");
    },
    async up() {
      await pgCtl("-o", options, "-l", path.join(dir, "log"), "-w", "start");
    },
    async cut(application) {
      const who = application ? `application_name = '${application}'` : "application_name <> 'psql'";
      const out = await psql(
        `SELECT count(pg_terminate_backend(pid, 10000)) FROM pg_stat_activity WHERE backend_type = 'client backend' AND ${who} AND pid <> pg_backend_pid()`,
      );
      return Number(out.trim());
    },
    async stop() {
      await pgCtl("-m", "immediate", "-w", "stop").catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
