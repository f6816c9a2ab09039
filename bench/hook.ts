/**
 * Cold-start benchmark of `lorecards hook`, the compiled binary as Claude Code runs it: a fresh process
 * per prompt, hook JSON on stdin, a 3-turn JSONL transcript, on generated vaults with a warm index.
 * English and Chinese prompts; p50/p99 wall time and peak RSS of the child process, and the p50 as a
 * multiple of the floor (a compiled hello-world measured in the same run, _floor.ts). A third row puts
 * 3 MB of tool calls and results before the last reply, as in a busy coding session (_workload.ts
 * writes the transcripts). Then one card at a time is edited the way an editor saves it (atomically,
 * then written in place as VS Code and Obsidian do), and the next prompt, which must see the edit, is
 * timed against the warm p50. A large vault's keeper (vault/keeper.ts), which the first warm runs
 * start, is stopped when the benchmark ends.
 *
 *   bun bench/hook.ts [--bin dist/lorecards] [--sizes 1000,10000,100000] [--runs 30] [--edits 5]
 *                     [--floor BIN] [--vaults DIR]
 */
import { type Series, series } from "./_floor.ts";
import { type GoalRow, reportGoals, startGoals } from "./_goals.ts";
import { ms, percentile, ratio, table } from "./_stats.ts";
import { editInPlace, runsAfterEdits, startupRun, type Workload, workload } from "./_workload.ts";

const { bin, sizes, runs, edits, vaults, table: startup } = startupRun("prompt", "injected");

/** The prompt, and the transcript before it (bench/_workload.ts writes them beside the vault). */
const VARIANTS: [string, "english" | "chinese", keyof Workload["transcripts"]][] = [
  ["English", "english", "english"],
  ["Chinese", "chinese", "chinese"],
  ["English, 3 MB of tool output", "english", "toolOutput"],
];

/** How many cards the hook's answer holds. */
function injected(stdout: string): number {
  if (!stdout) return 0;
  const context: string = JSON.parse(stdout).hookSpecificOutput.additionalContext;
  return (context.match(/^### /gm) ?? []).length;
}

const { floor, rows } = startup;
const row = startup.row.bind(startup);

const goals: GoalRow[] = [];
for (const size of sizes) {
  const w = workload(vaults, size);
  const cmd = [bin, "hook", "--vault", w.root, "--no-log"];
  /** Hook JSON for a prompt after a transcript, in a session of its own: cards go in and are recorded. */
  const input = (transcript: string, prompt: string, session: string) =>
    JSON.stringify({
      hook_event_name: "UserPromptSubmit",
      session_id: `${process.pid}-${size}-${session}`,
      transcript_path: transcript,
      cwd: w.root,
      prompt,
    });
  let warmEnglish: Series | undefined;
  for (const [label, language, kind] of VARIANTS) {
    const prompt = w[language].at(-1)!;
    const stdin = (i: number) => input(w.transcripts[kind], prompt, `${kind}-${i}`);
    const warm = series(cmd, { runs, maxSeconds: 30, stdin });
    row(size, label, warm, injected(warm.first.stdout));
    if (kind === "english") warmEnglish = warm;
  }
  // After every warm row: an edit leaves its folder to be compared again for a moment (_workload.ts).
  const prompt = w.english.at(-1)!;
  const edited = runsAfterEdits(cmd, w.cards, edits, (i) =>
    input(w.transcripts.english, prompt, `edit-${i}`),
  ).map((r) => r.ms);
  const p50 = percentile(edited, 50);
  const what = `English, the first prompt after editing one card (${edits}×)`;
  rows.push([size, what, ms(p50), ms(percentile(edited, 99)), "-", ratio(p50, floor.p50), "-"]);
  const inPlace = runsAfterEdits(
    cmd,
    w.cards,
    edits,
    (i) => input(w.transcripts.english, prompt, `in-place-${i}`),
    editInPlace,
  ).map((r) => r.ms);
  const p50InPlace = percentile(inPlace, 50);
  const whatInPlace = `English, the first prompt after an edit written in place (${edits}×)`;
  rows.push([
    size,
    whatInPlace,
    ms(p50InPlace),
    ms(percentile(inPlace, 99)),
    "-",
    ratio(p50InPlace, floor.p50),
    "-",
  ]);
  goals.push(...startGoals("hook", size, floor, warmEnglish!, edited, inPlace));
}
console.log(
  `hook cold start: ${bin}, up to ${runs} runs per row, 3-turn transcript, warm index, Bun ${Bun.version}`,
);
console.log(table(rows));
reportGoals("hook", goals);
