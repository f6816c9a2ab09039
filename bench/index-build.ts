/**
 * Indexing a fresh vault: the first `lorecards try --json` on a vault just generated, which parses
 * every card and writes the index and the matcher. Its wall time and peak RSS, once (a second run
 * would find the index built). Issue 13's goal is for 100,000 cards: ≤ 5 s and ≤ 400 MB.
 *
 *   bun bench/index-build.ts [--bin dist/lorecards] [--cards 100000] [--floor BIN] [--vaults DIR]
 *
 * With --vaults DIR, a DIR/<cards> not there yet is generated there, and stays indexed for the
 * scripts after this one (bench/run.ts runs this first); one already there is not fresh, so a
 * temporary vault is generated instead.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { floorBinary, floorSeries, rss, timedRun } from "./_floor.ts";
import { type GoalRow, reportGoals } from "./_goals.ts";
import { mb, ms, option, ratio, table } from "./_stats.ts";
import { workload } from "./_workload.ts";

const GOAL_CARDS = 100_000;
const GOAL_MS = 5000;
const GOAL_MB = 400;

const bin = option("--bin", "dist/lorecards");
const cards = Number(option("--cards", String(GOAL_CARDS)));
const floorBin = floorBinary(option("--floor", "") || undefined);
const shared = option("--vaults", "");

const floor = floorSeries(floorBin, 30);
const fresh =
  shared && !existsSync(join(shared, String(cards)))
    ? shared
    : mkdtempSync(join(tmpdir(), "lc-bench-fresh-"));
try {
  const started = performance.now();
  const w = workload(fresh, cards);
  const generated = performance.now() - started;
  const first = timedRun([bin, "try", w.english.at(-1)!, "--json", "--vault", w.root]);
  const second = timedRun([bin, "try", w.english.at(-1)!, "--json", "--vault", w.root]);
  console.log(
    `indexing a fresh vault: ${bin}, ${cards.toLocaleString("en")} cards (generated in ${ms(generated)}), Bun ${Bun.version}`,
  );
  console.log(
    table([
      ["run", "wall", "max RSS", "÷ floor"],
      ["the floor (compiled hello world)", ms(floor.p50), rss(floor.rssMB), "1×"],
      ["first try --json (builds the index)", ms(first.ms), mb(first.rssMB), ratio(first.ms, floor.p50)],
      ["the try after it (index built)", ms(second.ms), mb(second.rssMB), ratio(second.ms, floor.p50)],
    ]),
  );
  const atGoal = cards === GOAL_CARDS;
  const goals: GoalRow[] = [
    {
      figure: "indexing a fresh vault, wall time",
      cards,
      value: `${ms(first.ms)} = ${ratio(first.ms, floor.p50)} the floor`,
      goal: `≤ ${GOAL_MS / 1000} s at ${GOAL_CARDS.toLocaleString("en")}`,
      met: atGoal ? first.ms <= GOAL_MS : undefined,
    },
    {
      figure: "indexing a fresh vault, peak RSS",
      cards,
      value: mb(first.rssMB),
      goal: `≤ ${GOAL_MB} MB at ${GOAL_CARDS.toLocaleString("en")}`,
      met: atGoal ? first.rssMB <= GOAL_MB : undefined,
    },
  ];
  reportGoals("indexing", goals);
} finally {
  if (fresh !== shared) rmSync(fresh, { recursive: true, force: true });
}
