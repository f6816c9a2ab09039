// The compiled binary for end-to-end tests, so they exercise exactly what users download. It is built
// (by `bun build.ts`) when dist/ has none, when anything it is built from (src/, build.ts, package.json,
// the lockfile) changed after it was, or when LORECARDS_REBUILD is set, and that is said on stderr: an
// end-to-end test never runs an old build by accident.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

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
function staleness(): string | undefined {
  if (!existsSync(BINARY)) return "there is none yet";
  if (process.env.LORECARDS_REBUILD) return "LORECARDS_REBUILD is set";
  const newer = newerInput(
    statSync(BINARY).mtimeMs,
    INPUTS.map((p) => join(REPO, p)),
  );
  return newer ? `${relative(REPO, newer)} is newer than it` : undefined;
}

let building: Promise<string> | undefined;

export function ensureBinary(): Promise<string> {
  building ??= (async () => {
    const why = staleness();
    if (!why) return BINARY;
    console.error(`test/support/binary.ts: building ${relative(REPO, BINARY)}: ${why}`);
    const proc = Bun.spawn([process.execPath, "build.ts"], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
    const code = await proc.exited;
    if (code !== 0)
      throw new Error(`bun build.ts failed (${code}): ${await new Response(proc.stderr).text()}`);
    return BINARY;
  })();
  return building;
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
