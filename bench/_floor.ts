/**
 * The floor every start-up figure is divided by, and how every process is timed. The floor is
 * `console.log("hello")` compiled with build.ts's own `compile` (bytecode, minify, the same
 * options) into a temp directory: no Bun executable starts faster on this machine, so a ratio to
 * it says what our code costs whatever the machine.
 *
 *   bun bench/_floor.ts DIR     builds DIR/hello and prints its path (what `floorBinary` runs)
 *
 * Each process is timed twice: wall time from spawn to exit, and the CPU time (user + system, every
 * thread) getrusage reports for it. On a loaded machine the CPU time is the steadier figure, and the
 * one every ratio to the floor is taken of.
 *
 * RSS is the child's maximum as getrusage reports it. Bun starts a child sharing its own memory
 * until exec, so that figure never reads below the measuring process's own peak: the scripts keep
 * that process small (vaults are written and read by child processes, the floor is compiled by one),
 * and a figure at or under it is printed as "≤".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ms, percentile, ratio } from "./_stats.ts";

export interface Run {
  ms: number;
  /** CPU time, user + system. */
  cpuMs: number;
  rssMB: number;
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  stdin?: string;
  /** Accept a non-zero exit or anything on stderr (default: throw, a failed run is no figure). */
  allowFailure?: boolean;
}

/** One process, timed from spawn to exit, with its peak RSS. */
export function timedRun(cmd: readonly string[], opts: RunOptions = {}): Run {
  const started = performance.now();
  const proc = Bun.spawnSync([...cmd], {
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const elapsed = performance.now() - started;
  const cpu = proc.resourceUsage?.cpuTime;
  const run = {
    ms: elapsed,
    // cpuTime is in microseconds.
    cpuMs: cpu ? Number(cpu.user + cpu.system) / 1000 : Number.NaN,
    // resourceUsage.maxRSS is in bytes (kilobytes from getrusage, scaled by Bun).
    rssMB: (proc.resourceUsage?.maxRSS ?? 0) / 1024 / 1024,
    code: proc.exitCode ?? -1,
    stdout: proc.stdout.toString(),
    stderr: proc.stderr.toString(),
  };
  if (!opts.allowFailure && (run.code !== 0 || run.stderr !== ""))
    throw new Error(`${cmd.slice(1, 3).join(" ")} failed (exit ${run.code}): ${run.stderr.slice(0, 500)}`);
  return run;
}

export interface Series {
  p50: number;
  p99: number;
  /** CPU time per run, p50. */
  cpuP50: number;
  /** The highest RSS over the runs. */
  rssMB: number;
  samples: number[];
  /** The first timed run (its output, for a sanity check). */
  first: Run;
}

export interface SeriesOptions {
  runs: number;
  /** Stop early once this much time went by (at least 5 runs): a slow row stays bounded. */
  maxSeconds?: number;
  /** stdin of run i (the warm-up is run -1). */
  stdin?: (i: number) => string;
  /** One untimed run first, which warms the page cache (and builds a missing index). Default true. */
  warmUp?: boolean;
}

/** The same command run again and again, each a fresh process. */
export function series(cmd: readonly string[], opts: SeriesOptions): Series {
  if (opts.warmUp !== false) timedRun(cmd, { stdin: opts.stdin?.(-1) });
  const runs: Run[] = [];
  const deadline = performance.now() + (opts.maxSeconds ?? 60) * 1000;
  for (let i = 0; i < opts.runs && (i < 5 || performance.now() < deadline); i++)
    runs.push(timedRun(cmd, { stdin: opts.stdin?.(i) }));
  const samples = runs.map((r) => r.ms);
  return {
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    cpuP50: percentile(
      runs.map((r) => r.cpuMs),
      50,
    ),
    rssMB: Math.max(...runs.map((r) => r.rssMB)),
    samples,
    first: runs[0]!,
  };
}

/** This process's own peak RSS in MB (Linux), under which a child's figure cannot be read. */
export function ownPeakMB(): number {
  try {
    const kb = /VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** A peak RSS as printed: "≤ 18.4 MB" when it does not exceed the measuring process's own. */
export function rss(value: number): string {
  const own = ownPeakMB();
  return value <= own ? `≤ ${own.toFixed(1)} MB` : `${value.toFixed(1)} MB`;
}

/**
 * The floor binary: `given` (run.ts builds one for every script), else one compiled now by a child
 * process into a temp directory that is removed when this process exits.
 */
export function floorBinary(given?: string): string {
  if (given) return given;
  const dir = mkdtempSync(join(tmpdir(), "lc-bench-floor-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return buildFloor(dir);
}

/** Compile the floor into `dir` in a child process (compiling in this one would inflate every RSS after it). */
export function buildFloor(dir: string): string {
  const proc = Bun.spawnSync([process.execPath, join(import.meta.dir, "_floor.ts"), dir], {
    stdout: "pipe",
    stderr: "inherit",
  });
  if (proc.exitCode !== 0) throw new Error("compiling the floor failed");
  return proc.stdout.toString().trim();
}

/** The floor's series, measured now: the divisor of every ratio a script prints after it. */
export function floorSeries(bin: string, runs: number): Series {
  return series([bin], { runs, maxSeconds: 20 });
}

/**
 * A start-up table: the floor and `--version` first, each row's CPU p50 also as a multiple of the
 * floor's.
 */
export class StartupTable {
  readonly rows: (string | number)[][];

  constructor(
    readonly floor: Series,
    bin: string,
    runs: number,
    what: string,
    last: string,
  ) {
    this.rows = [["cards", what, "wall p50", "CPU p50", "CPU ÷ floor", "max RSS", last]];
    this.row("-", "the floor (compiled hello world)", floor, "-");
    this.row("-", "--version", series([bin, "--version"], { runs }), "-");
  }

  row(cards: string | number, what: string, s: Series, last: string | number): void {
    this.rows.push([
      cards,
      what,
      ms(s.p50),
      ms(s.cpuP50),
      ratio(s.cpuP50, this.floor.cpuP50),
      rss(s.rssMB),
      last,
    ]);
  }

  /** A row of single runs (each after an edit, an idle minute…): their p50s and highest RSS. */
  runs(cards: string | number, what: string, runs: readonly Run[]): void {
    const cpu = percentile(
      runs.map((r) => r.cpuMs),
      50,
    );
    const wall = percentile(
      runs.map((r) => r.ms),
      50,
    );
    const peak = Math.max(...runs.map((r) => r.rssMB));
    this.rows.push([cards, what, ms(wall), ms(cpu), ratio(cpu, this.floor.cpuP50), rss(peak), "-"]);
  }
}

if (import.meta.main) {
  const dir = process.argv[2];
  if (!dir) {
    console.error("usage: bun bench/_floor.ts DIR");
    process.exit(2);
  }
  const { compile } = await import("../build.ts");
  const entry = join(dir, "hello.ts");
  writeFileSync(entry, 'console.log("hello");\n');
  const out = join(dir, process.platform === "win32" ? "hello.exe" : "hello");
  await compile(entry, out);
  console.log(out);
}
