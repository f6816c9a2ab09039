// The compiled binary for end-to-end tests: built once (by `bun build.ts`) when dist/ has none, so
// these tests exercise exactly what users download.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export const REPO = resolve(import.meta.dir, "../..");
export const BINARY = join(REPO, "dist", process.platform === "win32" ? "lorecards.exe" : "lorecards");

let building: Promise<string> | undefined;

export function ensureBinary(): Promise<string> {
  building ??= (async () => {
    if (existsSync(BINARY) && !process.env.LORECARDS_REBUILD) return BINARY;
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
