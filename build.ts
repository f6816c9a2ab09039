/**
 * Builds the single-file `lorecards` binary with `bun build --compile`.
 *
 *   bun build.ts            the host platform → dist/lorecards (dist/lorecards.exe on Windows)
 *   bun build.ts --all      linux-x64, linux-arm64, darwin-x64, darwin-arm64, windows-x64
 *                           → dist/lorecards-<os>-<arch>[.exe]
 *
 * Bytecode, minification and code splitting make cold starts fast (the hook runs on every prompt). The binary never
 * autoloads a `.env` or `bunfig.toml` from the user's working directory: those belong to whatever
 * project the user happens to be in, not to us. bench/_floor.ts compiles its hello-world floor with
 * `compile` too, so the two differ only in what they run.
 *
 * The binary is compiled twice. The first build runs a warm `hook` and `try --json` on a small vault
 * and records which functions they use (Bun's profile-guided bytecode layout); the second puts that
 * bytecode together at the front, so a cold start pages in less of the binary: about 5 MB less RSS
 * per hook (bench/README.md, "Start-up"). A run that fails to record leaves the layout as it was.
 *
 * The binary starts with JavaScriptCore's tier-up thresholds raised (JIT_POLICY): a hook or `try` lives
 * for milliseconds, and compiling code it runs once costs more than it saves. Every other command,
 * servers above all, sets the normal policy as it starts (src/cli/index.ts).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "windows-x64"] as const;
type Target = (typeof TARGETS)[number];

/**
 * The modules a thread of the program runs (src/match/segment-thread.ts), each an entry point of the
 * binary: a worker's code must be one (Bun's single-file executables), and is named from src/ there.
 */
export const THREADS = ["src/match/_segment-worker.ts"];

/** Tier-up thresholds ×10 at start: the warm hook ~1.5 ms (12%) and ~3 MB sooner (bench/README.md). */
const JIT_POLICY = 10;

/**
 * Compile `entrypoint` into the executable `outfile`, for `target` (default: this machine), with the
 * bytecode laid out by the recorded `order` files when given, and the modules of its `threads`.
 */
export async function compile(
  entrypoint: string,
  outfile: string,
  target?: Target,
  order: string[] = [],
  threads: string[] = [],
): Promise<void> {
  const result = await Bun.build({
    entrypoints: [entrypoint, ...threads],
    compile: {
      ...(target === undefined ? {} : { target: `bun-${target}` as Bun.Build.CompileTarget }),
      outfile,
      autoloadDotenv: false,
      autoloadBunfig: false,
      bytecodeOrder: order.length > 0 && order,
      jitPolicy: JIT_POLICY,
    },
    format: "esm",
    // Lazily imported commands (gateway, MCP SDK, zip, the UI) become separate chunks inside the
    // binary, so a cold `hook` or `try` does not load their bytecode.
    splitting: true,
    bytecode: true,
    minify: true,
    sourcemap: "none",
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    throw new Error(`build of ${outfile} failed`);
  }
}

/**
 * The functions a warm `hook` and `try --json` run, recorded by a first build in `dir` on the example
 * vault `init` writes: the order files, the hook's first (the most common start). None when a run fails.
 */
async function recordOrder(dir: string): Promise<string[]> {
  const bin = join(dir, "lorecards-profile");
  const vault = join(dir, "vault");
  await compile("src/main.ts", bin, undefined, [], THREADS);
  const env = { ...process.env, HOME: dir, LORECARDS_VAULT: vault };
  const run = (args: string[], stdin?: string, out?: string) =>
    Bun.spawnSync([bin, ...args], {
      stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
      stdout: "ignore",
      stderr: "pipe",
      env: out ? { ...env, BUN_BYTECODE_ORDER_OUT: out } : env,
    });
  const prompt = "Alice said the Friday deploy moved to the corner cafe";
  const hook = JSON.stringify({ hook_event_name: "UserPromptSubmit", session_id: "build", prompt });
  const steps: [string[], string | undefined, string | undefined][] = [
    [["init", vault], undefined, undefined],
    [["try", prompt, "--json"], undefined, undefined], // builds the index: the runs below are warm
    [["hook", "--no-log"], hook, join(dir, "hook.order")],
    [["try", prompt, "--json"], undefined, join(dir, "try.order")],
  ];
  for (const [args, stdin, out] of steps) {
    const proc = run(args, stdin, out);
    if (proc.exitCode !== 0 || proc.stderr.length > 0) {
      console.error(`build.ts: no bytecode layout: ${args[0]} failed: ${proc.stderr.toString().trim()}`);
      return [];
    }
  }
  return steps.flatMap(([, , out]) => (out ? [out] : []));
}

function outfileFor(target: Target | "host"): string {
  const exe = target === "windows-x64" || (target === "host" && process.platform === "win32") ? ".exe" : "";
  return target === "host" ? `dist/lorecards${exe}` : `dist/lorecards-${target}${exe}`;
}

if (import.meta.main) {
  // Paths below are relative to the repository, wherever the script is started from.
  process.chdir(import.meta.dir);
  const all = process.argv.includes("--all");
  const unknown = process.argv.slice(2).filter((a) => a !== "--all");
  if (unknown.length > 0) {
    console.error(`build.ts: unknown argument ${unknown[0]} (use --all for every platform)`);
    process.exit(2);
  }
  // Overwrite binaries in place rather than wiping dist/: a test run may be using the host binary.
  mkdirSync("dist", { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "lorecards-build-"));
  try {
    const started = performance.now();
    const order = await recordOrder(work);
    console.log(`bytecode layout recorded  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    for (const target of all ? TARGETS : (["host"] as const)) {
      const started = performance.now();
      const out = outfileFor(target);
      await compile("src/main.ts", out, target === "host" ? undefined : target, order, THREADS);
      console.log(`${out}  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
