/**
 * Runs every benchmark in turn against a fresh build of the binary and prints their tables.
 *
 *   npm run bench            (or: bun bench/run.ts)
 *   npm run bench -- quick   fewer rounds, for a first look
 */
const quick = process.argv.includes("quick");
const scripts: [string, string[]][] = [
  ["lookup.ts", quick ? ["--sizes", "1000,10000", "--rounds", "100"] : []],
  ["cold-start.ts", quick ? ["--runs", "10"] : []],
  ["hook.ts", quick ? ["--runs", "10"] : []],
  ["gateway.ts", quick ? ["--requests", "100", "--seconds", "1"] : []],
  ["import.ts", quick ? ["2000"] : []],
];

const build = Bun.spawnSync([process.execPath, "build.ts"], { stdout: "inherit", stderr: "inherit" });
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);
console.log(`machine: ${navigator.hardwareConcurrency} cores, ${process.platform}-${process.arch}\n`);
for (const [script, args] of scripts) {
  const proc = Bun.spawnSync([process.execPath, `bench/${script}`, ...args], {
    stdout: "inherit",
    stderr: "inherit",
  });
  if (proc.exitCode !== 0) {
    console.error(`bench/${script} failed`);
    process.exit(proc.exitCode ?? 1);
  }
  console.log("");
}
