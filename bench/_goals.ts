/**
 * The goals of issues 13 and 26 that the start-up scripts check, and the goal table every script prints.
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
 * The three start-up rows for one command at one size, in CPU time: its warm p50 against the floor
 * (`timesFloor`, else the size's goal of issue 13), its peak RSS, and the runs that each followed an
 * edit against the warm p50.
 */
export function startGoals(
  command: string,
  cards: number,
  floor: Series,
  warm: Series,
  edited: number[],
  inPlace: number[] = [],
  timesFloor: number | undefined = P50_TIMES_FLOOR[cards],
): GoalRow[] {
  const times = timesFloor;
  const rssGoal = RSS_MB[cards];
  return [
    {
      figure: `cold ${command}, CPU p50`,
      cards,
      value: `${ms(warm.cpuP50)} = ${ratio(warm.cpuP50, floor.cpuP50)} the floor`,
      goal: times === undefined ? "-" : `≤ ${times}× the floor`,
      met: times === undefined ? undefined : warm.cpuP50 <= times * floor.cpuP50,
    },
    {
      figure: `cold ${command}, peak RSS`,
      cards,
      value: mb(warm.rssMB),
      goal: rssGoal === undefined ? "-" : `≤ ${rssGoal} MB`,
      met: rssGoal === undefined ? undefined : warm.rssMB <= rssGoal,
    },
    afterGoal(`${command} after editing one card`, cards, warm, edited),
    ...(inPlace.length === 0
      ? []
      : [afterGoal(`${command} after an edit written in place`, cards, warm, inPlace)]),
  ];
}

/** Single runs after something (an edit, an idle minute), CPU p50 against the warm CPU p50. */
export function afterGoal(figure: string, cards: number, warm: Series, cpuMs: number[]): GoalRow {
  const p50 = percentile(cpuMs, 50);
  return {
    figure: `${figure}, CPU p50`,
    cards,
    value: `${ms(p50)} = ${ratio(p50, warm.cpuP50)} warm (${cpuMs.length}×)`,
    goal: `≤ ${EDITED_TIMES_WARM}× a warm run`,
    met: p50 <= EDITED_TIMES_WARM * warm.cpuP50,
  };
}

/** A CPU p50 against a baseline's of the same run (`times`: the goal, as a multiple). */
export function ratioGoal(
  figure: string,
  cards: number | undefined,
  value: Series,
  base: Series,
  baseName: string,
  times: number,
): GoalRow {
  return {
    figure,
    ...(cards !== undefined && { cards }),
    value: `${ms(value.cpuP50)} = ${ratio(value.cpuP50, base.cpuP50)} ${baseName}`,
    goal: `≤ ${times}× ${baseName}`,
    met: value.cpuP50 <= times * base.cpuP50,
  };
}

/** The highest peak RSS of several rows at one size, against that size's goal. */
export function peakGoal(figure: string, cards: number, peakMB: number): GoalRow {
  const goal = RSS_MB[cards];
  return {
    figure,
    cards,
    value: mb(peakMB),
    goal: goal === undefined ? "-" : `≤ ${goal} MB`,
    met: goal === undefined ? undefined : peakMB <= goal,
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
  console.log(`\n${title}: goals\n${goalTable(rows)}`);
  const summary = process.env.LORECARDS_BENCH_SUMMARY;
  if (summary) appendFileSync(summary, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
}
