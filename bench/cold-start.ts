/**
 * Cold start of the compiled binary's `try --json`: a fresh process per lookup on generated 1k and
 * 10k-card vaults with a warm index (the first run builds it, as a user's first command would), a
 * 3-turn window passed with --turns. Beside it, `--version` on the same binary: the runtime's own
 * start, which no change of ours can go below. Target (bench/README.md): p50 ≤ 50 ms on 1k cards.
 *
 *   bun bench/cold-start.ts [--bin dist/lorecards] [--sizes 1000,10000] [--runs 40]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateCards, sampleWindow } from "./_gen.ts";
import { ms, percentile, table } from "./_stats.ts";
import { writeVault } from "./gen-vault.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : fallback;
}

const bin = arg("--bin", "dist/lorecards");
const sizes = arg("--sizes", "1000,10000").split(",").map(Number);
const runs = Number(arg("--runs", "40"));

function time(args: string[]): { ms: number; rssMB: number; stdout: string } {
  const started = performance.now();
  const proc = Bun.spawnSync([bin, ...args], { stdout: "pipe", stderr: "pipe" });
  const elapsed = performance.now() - started;
  if (proc.exitCode !== 0) throw new Error(`${args[0]} failed: ${proc.stderr.toString()}`);
  return {
    ms: elapsed,
    rssMB: (proc.resourceUsage?.maxRSS ?? 0) / 1024 / 1024,
    stdout: proc.stdout.toString(),
  };
}

function series(args: string[]): { p50: number; p99: number; rss: number; last: string } {
  time(args);
  const samples: number[] = [];
  let rss = 0;
  let last = "";
  for (let i = 0; i < runs; i++) {
    const r = time(args);
    samples.push(r.ms);
    rss = Math.max(rss, r.rssMB);
    last = r.stdout;
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), rss, last };
}

const rows: (string | number)[][] = [["cards", "command", "p50", "p99", "max RSS", "fired"]];
const base = series(["--version"]);
rows.push(["-", "--version (runtime start)", ms(base.p50), ms(base.p99), `${base.rss.toFixed(1)} MB`, "-"]);
for (const size of sizes) {
  const dir = mkdtempSync(join(tmpdir(), "lc-bench-try-"));
  try {
    writeVault(dir, size);
    const window = sampleWindow(generateCards(size), 7);
    const turns = window.slice(0, -1).map((text, i) => ({ role: i % 2 === 0 ? "user" : "assistant", text }));
    const r = series([
      "try",
      window[window.length - 1]!,
      "--turns",
      JSON.stringify(turns),
      "--json",
      "--vault",
      dir,
    ]);
    const fired = JSON.parse(r.last).fired.length;
    rows.push([size, "try --json (3 turns)", ms(r.p50), ms(r.p99), `${r.rss.toFixed(1)} MB`, fired]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(`cold start: ${bin}, ${runs} runs per row, warm index, Bun ${Bun.version}`);
console.log(table(rows));
