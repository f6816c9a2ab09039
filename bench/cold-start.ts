/**
 * Cold start of the compiled binary's `try --json`: a fresh process per lookup on generated vaults
 * with a warm index (the first run builds it, as a user's first command would), a 3-turn window
 * passed with --turns. Every time is also given as a multiple of the floor, a compiled hello-world
 * measured in the same run (_floor.ts), beside `--version` on the same binary. Then one card at a time
 * is edited the way an editor saves it, and the next `try` is timed against the warm p50.
 *
 *   bun bench/cold-start.ts [--bin dist/lorecards] [--sizes 1000,10000,100000] [--runs 30] [--edits 5]
 *                           [--floor BIN] [--vaults DIR]
 */
import { series } from "./_floor.ts";
import { type GoalRow, reportGoals, startGoals } from "./_goals.ts";
import { ms, percentile, ratio, table } from "./_stats.ts";
import { editInPlace, runsAfterEdits, startupRun, workload } from "./_workload.ts";

const { bin, sizes, runs, edits, vaults, table: startup } = startupRun("command", "fired");

const { floor, rows } = startup;
const row = startup.row.bind(startup);

const goals: GoalRow[] = [];
for (const size of sizes) {
  const w = workload(vaults, size);
  const turns = w.english.slice(0, -1).map((text, i) => ({ role: i % 2 === 0 ? "user" : "assistant", text }));
  const cmd = [bin, "try", w.english.at(-1)!, "--turns", JSON.stringify(turns), "--json", "--vault", w.root];
  const warm = series(cmd, { runs, maxSeconds: 30 });
  row(size, "try --json (3 turns)", warm, JSON.parse(warm.first.stdout).fired.length);
  const edited = runsAfterEdits(cmd, w.cards, edits).map((r) => r.ms);
  const p50 = percentile(edited, 50);
  const what = `the first try after editing one card (${edits}×)`;
  rows.push([size, what, ms(p50), ms(percentile(edited, 99)), "-", ratio(p50, floor.p50), "-"]);
  const inPlace = runsAfterEdits(cmd, w.cards, edits, undefined, editInPlace).map((r) => r.ms);
  const p50InPlace = percentile(inPlace, 50);
  const whatInPlace = `the first try after an edit written in place (${edits}×)`;
  rows.push([
    size,
    whatInPlace,
    ms(p50InPlace),
    ms(percentile(inPlace, 99)),
    "-",
    ratio(p50InPlace, floor.p50),
    "-",
  ]);
  goals.push(...startGoals("try --json", size, floor, warm, edited, inPlace));
}
console.log(`cold start: ${bin}, up to ${runs} runs per row, warm index, Bun ${Bun.version}`);
console.log(table(rows));
reportGoals("try --json", goals);
