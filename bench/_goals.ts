/**
 * The goals of issue 13 that the start-up scripts check, and the goal table every script prints.
 * Each script appends its rows to the file named by $LORECARDS_BENCH_SUMMARY (one JSON object a
 * line), from which `bench/run.ts` prints one table at the end; a script run alone just prints its own.
 */
import { appendFileSync } from "node:fs";
import type { Series } from "./_floor.ts";
import { mb, ms, percentile, ratio, table } from "./_stats.ts";

/** One row of the goal table: what was measured, its figure, the goal and whether it holds. */
export interface GoalRow {
  figure: string;
  /** Vault size, when the goal depends on it. */
  cards?: number;
  /** The measured value as printed, with its ratio to the floor. */
  value: string;
  goal: string;
  /** undefined: measured, but the issue sets no goal at this size. */
  met: boolean | undefined;
}

/** Cold p50 as a multiple of the floor, by vault size. */
const P50_TIMES_FLOOR: Record<number, number> = { 1000: 2, 10000: 2.5, 100000: 4 };
/** Peak RSS in MB, by vault size. */
const RSS_MB: Record<number, number> = { 10000: 60, 100000: 100 };
/** The first run after an edit, as a multiple of a warm run, at every size. */
const EDITED_TIMES_WARM = 1.5;

/**
 * The three start-up rows for one command at one size: its warm p50 against the floor, its peak
 * RSS, and the runs that each followed an edit against the warm p50.
 */
export function startGoals(
  command: string,
  cards: number,
  floor: Series,
  warm: Series,
  edited: number[],
  inPlace: number[] = [],
): GoalRow[] {
  const times = P50_TIMES_FLOOR[cards];
  const rssGoal = RSS_MB[cards];
  const editedP50 = percentile(edited, 50);
  return [
    {
      figure: `cold ${command}, p50`,
      cards,
      value: `${ms(warm.p50)} = ${ratio(warm.p50, floor.p50)} the floor`,
      goal: times === undefined ? "-" : `≤ ${times}× the floor`,
      met: times === undefined ? undefined : warm.p50 <= times * floor.p50,
    },
    {
      figure: `cold ${command}, peak RSS`,
      cards,
      value: mb(warm.rssMB),
      goal: rssGoal === undefined ? "-" : `≤ ${rssGoal} MB`,
      met: rssGoal === undefined ? undefined : warm.rssMB <= rssGoal,
    },
    {
      figure: `${command} after editing one card, p50`,
      cards,
      value: `${ms(editedP50)} = ${ratio(editedP50, warm.p50)} warm (${edited.length} edits)`,
      goal: `≤ ${EDITED_TIMES_WARM}× a warm run`,
      met: editedP50 <= EDITED_TIMES_WARM * warm.p50,
    },
    ...(inPlace.length === 0 ? [] : [inPlaceGoal(command, cards, warm, inPlace)]),
  ];
}

/** The first run after an edit written into a card in place, which it must see (vault/keeper.ts). */
function inPlaceGoal(command: string, cards: number, warm: Series, inPlace: number[]): GoalRow {
  const p50 = percentile(inPlace, 50);
  return {
    figure: `${command} after an edit written in place, p50`,
    cards,
    value: `${ms(p50)} = ${ratio(p50, warm.p50)} warm (${inPlace.length} edits)`,
    goal: `≤ ${EDITED_TIMES_WARM}× a warm run`,
    met: p50 <= EDITED_TIMES_WARM * warm.p50,
  };
}

export function verdict(met: boolean | undefined): string {
  return met === undefined ? "no goal at this size" : met ? "met" : "MISSED";
}

export function goalTable(rows: readonly GoalRow[]): string {
  return table([
    ["figure", "cards", "measured", "goal", ""],
    ...rows.map((r) => [r.figure, r.cards?.toLocaleString("en") ?? "-", r.value, r.goal, verdict(r.met)]),
  ]);
}

/** Print a script's goal rows and hand them to `bench/run.ts` (see above). */
export function reportGoals(title: string, rows: readonly GoalRow[]): void {
  console.log(`\n${title}: goals (issue 13)\n${goalTable(rows)}`);
  const summary = process.env.LORECARDS_BENCH_SUMMARY;
  if (summary) appendFileSync(summary, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
}
