// The compiled binary for end-to-end tests, so they exercise exactly what users download. It is built
// before any test runs (test/preload.ts, by `bun build.ts`) when dist/ has none, when anything it is
// built from (src/, build.ts, package.json, the lockfile) changed after it was, or when
// LORECARDS_REBUILD is set, and that is said on stderr. A test never builds it: a build inside a test
// hook would be cut off by the hook's timeout on a slow machine. `ensureBinary()` only checks that the
// binary is there and current, so an end-to-end test never runs an old build by accident.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { testFiles, tierOf } from "./tiers.ts";

export const REPO = resolve(import.meta.dir, "../..");
export const BINARY = join(REPO, "dist", process.platform === "win32" ? "lorecards.exe" : "lorecards");

/** What the binary is built from: a change to any of these (or under src/) makes it stale. */
const INPUTS = ["src", "build.ts", "package.json", "package-lock.json"];

/**
 * The first input modified after `since`, or undefined. Folders count too: a file added, removed or
 * renamed changes its folder's mtime.
 */
function newerInput(since: number, paths: string[]): string | undefined {
  for (const path of paths) {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.mtimeMs > since) return path;
    const children = stat.isDirectory() ? readdirSync(path).map((name) => join(path, name)) : [];
    const inside = newerInput(since, children);
    if (inside) return inside;
  }
  return undefined;
}

/** Why the binary must be (re)built, or undefined when it is up to date. */
export function staleness(): string | undefined {
  if (!existsSync(BINARY)) return "there is none yet";
  if (process.env.LORECARDS_REBUILD) return "LORECARDS_REBUILD is set";
  const newer = newerInput(
    statSync(BINARY).mtimeMs,
    INPUTS.map((p) => join(REPO, p)),
  );
  return newer ? `${relative(REPO, newer)} is newer than it` : undefined;
}

/** Builds the binary now when it is stale (test/preload.ts, before any test file loads). */
export function buildIfStale(): void {
  const why = staleness();
  if (!why) return;
  console.error(`test/support/binary.ts: building ${relative(REPO, BINARY)}: ${why}`);
  const proc = Bun.spawnSync([process.execPath, "build.ts"], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0)
    throw new Error(
      `bun build.ts failed (${proc.exitCode}): ${proc.stderr.toString()}${proc.stdout.toString()}`,
    );
}

/**
 * Whether this `bun test` run may reach a test file that runs the binary (the e2e tier's, test/support/
 * tiers.ts). The tiers say so
 * (`LORECARDS_TIER`: unit and fuzz run none); otherwise the command line's path filters do (Bun
 * matches a filter anywhere in a file's path), read from /proc where there is one. Without a filter,
 * or without /proc, the answer is yes.
 */
export function runNeedsBinary(): boolean {
  const tier = process.env.LORECARDS_TIER;
  if (tier === "unit" || tier === "fuzz") return false;
  let argv: string[];
  try {
    argv = readFileSync("/proc/self/cmdline", "utf8").split("\0").filter(Boolean);
  } catch {
    return true;
  }
  const at = argv.indexOf("test");
  const filters: string[] = [];
  for (let i = at + 1; at >= 0 && i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith("-")) {
      // A flag's value may be the next word (`--timeout 60000`); a value never names a test file.
      if (
        !arg.includes("=") &&
        i + 1 < argv.length &&
        !argv[i + 1]!.startsWith("-") &&
        /^\d+$/.test(argv[i + 1]!)
      )
        i++;
      continue;
    }
    filters.push(arg.replace(/^\.\//, ""));
  }
  if (filters.length === 0) return true;
  const files = testFiles(REPO).filter((f) => tierOf(f) === "e2e");
  return filters.some((f) => files.some((file) => file.includes(f) || join(REPO, file).includes(f)));
}

/** The binary's path, once it is checked to be there and current (the preload built it). */
export function ensureBinary(): Promise<string> {
  if (process.env.LORECARDS_TIER === "unit")
    return Promise.reject(new Error("the unit tier runs no binary: an end-to-end test belongs in test/e2e/"));
  const why = staleness();
  if (why === undefined) return Promise.resolve(BINARY);
  return Promise.reject(
    new Error(
      `dist/lorecards is not current (${why}): build it with \`npm run build\` (\`npm test\` and \`bun test\` on an end-to-end file do it before the tests start)`,
    ),
  );
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the binary with arguments, optional stdin and environment; never inherits LORECARDS_VAULT. */
export async function runBinary(
  args: string[],
  opts: { stdin?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<RunResult> {
  const bin = await ensureBinary();
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" };
  const proc = Bun.spawn([bin, ...args], {
    cwd: opts.cwd,
    env: { ...env, ...opts.env },
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}
