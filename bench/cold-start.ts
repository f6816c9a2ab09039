/**
 * Cold start of the compiled binary's `try --json`: a fresh process per lookup on generated vaults
 * with a warm index (the first run builds it, as a user's first command would), a 3-turn window
 * passed with --turns. Every time is also given as a multiple of the floor, a compiled hello-world
 * measured in the same run (_floor.ts), beside `--version` on the same binary. The same window in
 * Chinese is held to the English one (its suggestions segment Chinese text). Then one card at a time
 * is edited the way an editor saves it, and the next `try` is timed against the warm p50.
 *
 *   bun bench/cold-start.ts [--bin dist/lorecards] [--sizes 1000,10000,100000] [--runs 30] [--edits 5]
 *                           [--floor BIN] [--vaults DIR]
 */
import { type Run, series } from "./_floor.ts";
import { type GoalRow, ratioGoal, reportGoals, startGoals } from "./_goals.ts";
import { table } from "./_stats.ts";
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
  // The same in Chinese: its suggestions segment Chinese text, which must not cost a heavy load.
  const zh = w.chinese.slice(0, -1).map((text, i) => ({ role: i % 2 === 0 ? "user" : "assistant", text }));
  const zhCmd = [bin, "try", w.chinese.at(-1)!, "--turns", JSON.stringify(zh), "--json", "--vault", w.root];
  const chinese = series(zhCmd, { runs, maxSeconds: 30 });
  row(size, "try --json (3 turns), Chinese", chinese, JSON.parse(chinese.first.stdout).fired.length);
  const edited = runsAfterEdits(cmd, w.cards, edits);
  startup.runs(size, `the first try after editing one card (${edits}×)`, edited);
  const inPlace = runsAfterEdits(cmd, w.cards, edits, undefined, editInPlace);
  startup.runs(size, `the first try after an edit written in place (${edits}×)`, inPlace);
  const cpu = (list: readonly Run[]) => list.map((r) => r.cpuMs);
  goals.push(...startGoals("try --json", size, floor, warm, cpu(edited), cpu(inPlace)));
  goals.push(ratioGoal("try --json in Chinese, CPU p50", size, chinese, warm, "the same in English", 2));
}
console.log(`cold start: ${bin}, up to ${runs} runs per row, warm index, Bun ${Bun.version}`);
console.log(table(rows));
reportGoals("try --json", goals);
