/**
 * Runs every benchmark in turn against a fresh build of the binary, then prints issue 13's goal table
 * from the rows the scripts reported (bench/_goals.ts), each beside its goal and whether it is met.
 * The floor (a compiled hello world, bench/_floor.ts) is compiled once here and measured again by
 * each script, in the same run as its own figures. Generated vaults are shared between the scripts:
 * index-build.ts runs first and leaves its fresh 100k-card vault indexed for the others. caching.ts
 * (cache hits and input tokens billed, issue 14) and style.ts (style memory's dictionary and its cost
 * per observed message, issue 16) print their own tables and set no goal of issue 13.
 *
 *   npm run bench            (or: bun bench/run.ts)
 *   npm run bench -- quick   fewer runs and vaults of 1k and 10k cards only, for a first look
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFloor } from "./_floor.ts";
import { type GoalRow, goalTable } from "./_goals.ts";

const quick = process.argv.includes("quick");
const work = mkdtempSync(join(tmpdir(), "lc-bench-"));
const vaults = join(work, "vaults");
const summary = join(work, "goals.jsonl");

/**
 * Goals whose figures a script prints in its own table without reporting a row (by the figure's first
 * word): the table says where to find them.
 */
const PRINTED_ABOVE: [string, string, string][] = [
  ["gateway", "gateway RSS, p99 added latency while cards are edited, request rate", "gateway.ts"],
  ["import", "import of a 10k-entry book", "import.ts"],
];

function run(script: string, args: string[]): void {
  const proc = Bun.spawnSync([process.execPath, script, ...args], {
    stdout: "inherit",
    stderr: "inherit",
    env: { ...process.env, LORECARDS_BENCH_SUMMARY: summary },
  });
  if (proc.exitCode !== 0) throw new Error(`${script} failed (exit ${proc.exitCode})`);
  console.log("");
}

process.chdir(join(import.meta.dir, ".."));
try {
  run("build.ts", []);
  mkdirSync(vaults);
  writeFileSync(summary, "");
  const floor = ["--floor", buildFloor(work), "--vaults", vaults];
  const start = quick ? ["--sizes", "1000,10000", "--runs", "10", "--edits", "3"] : [];
  console.log(`machine: ${navigator.hardwareConcurrency} cores, ${process.platform}-${process.arch}\n`);
  run("bench/index-build.ts", [...floor, ...(quick ? ["--cards", "10000"] : [])]);
  run("bench/lookup.ts", quick ? ["--sizes", "1000,10000", "--rounds", "100"] : []);
  run("bench/cold-start.ts", [...floor, ...start]);
  run("bench/hook.ts", [...floor, ...start]);
  const quickGateway = ["--sizes", "1000,10000", "--seconds", "1", "--rounds", "1", "--requests", "100"];
  run("bench/gateway.ts", [
    "--vaults",
    vaults,
    ...(quick ? [...quickGateway, "--rss-requests", "2000", "--edit-seconds", "3"] : []),
  ]);
  run("bench/saves.ts", ["--vaults", vaults, ...(quick ? ["--sizes", "1000,10000", "--saves", "100"] : [])]);
  run("bench/import.ts", quick ? ["2000", "--runs", "1"] : []);
  run("bench/big-ops.ts", ["--vaults", vaults, ...(quick ? ["--cards", "10000"] : [])]);
  run("bench/caching.ts", []);
  run("bench/style.ts", quick ? ["--messages", "500"] : []);
  run("bench/editor.ts", quick ? ["--runs", "3"] : []);

  const rows = readFileSync(summary, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as GoalRow);
  console.log(`Issue 13 goals${quick ? " (quick: 1k and 10k cards only)" : ""}\n${goalTable(rows)}`);
  for (const [word, goal, script] of PRINTED_ABOVE) {
    if (!rows.some((r) => r.figure.startsWith(word)))
      console.log(`${goal}: printed above by bench/${script}`);
  }
} catch (err) {
  console.error(String(err));
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
