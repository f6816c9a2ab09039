/**
 * Cold-start benchmark of `lorecards hook`, the compiled binary as Claude Code runs it: a fresh process
 * per prompt, hook JSON on stdin, a 3-turn JSONL transcript, on generated vaults with a warm index.
 * English and Chinese prompts; p50 wall and CPU time and peak RSS of the child process, and the CPU p50
 * as a multiple of the floor's (a compiled hello-world measured in the same run, _floor.ts). A third row
 * puts 3 MB of tool calls and results before the last reply, as in a busy coding session (_workload.ts
 * writes the transcripts). Then:
 * - the same prompt with a gateway running on the vault, which answers the hook over its socket;
 * - the first prompt after the vault sat idle for 61 s (past the periodic full check's minute);
 * - one card at a time edited the way an editor saves it (atomically, then written in place as VS Code
 *   and Obsidian do), and the next prompt, which must see the edit, timed against the warm p50.
 * A large vault's keeper (vault/keeper.ts), which the first warm runs start, is stopped when the
 * benchmark ends.
 *
 *   bun bench/hook.ts [--bin dist/lorecards] [--sizes 1000,10000,100000] [--runs 30] [--edits 5]
 *                     [--idles 2] [--floor BIN] [--vaults DIR]
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Run, type Series, series, timedRun } from "./_floor.ts";
import { afterGoal, type GoalRow, peakGoal, ratioGoal, reportGoals, startGoals } from "./_goals.ts";
import { option, table } from "./_stats.ts";
import { editInPlace, runsAfterEdits, startupRun, type Workload, workload } from "./_workload.ts";

const { bin, sizes, runs, edits, vaults, table: startup } = startupRun("prompt", "injected");
/** How many times a size sits idle for IDLE_MS before a prompt (each costs that long). */
const idles = Number(option("--idles", "2"));
/** Past the periodic full check's minute (vault/_compare.ts FULL_CHECK_MS). */
const IDLE_MS = 61_000;

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

/** A gateway on the vault (its upstream never asked), up once its hook socket is; stopped by the caller. */
async function startServer(root: string): Promise<() => Promise<void>> {
  const socket = join(root, ".lorecards", "hook.sock");
  const proc = Bun.spawn(
    [bin, "gateway", "--upstream", "http://127.0.0.1:9", "--port", "0", "--no-backups", "--vault", root],
    { stdout: "ignore", stderr: "ignore" },
  );
  const deadline = performance.now() + 120_000;
  while (!existsSync(socket)) {
    if (performance.now() > deadline || proc.exitCode !== null) throw new Error("the gateway did not start");
    await Bun.sleep(100);
  }
  return async () => {
    proc.kill();
    await proc.exited;
  };
}

const { floor, rows } = startup;
const row = startup.row.bind(startup);
const cpu = (list: readonly Run[]) => list.map((r) => r.cpuMs);

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
  const peaks: number[] = [];
  let warmEnglish: Series | undefined;
  for (const [label, language, kind] of VARIANTS) {
    const prompt = w[language].at(-1)!;
    const stdin = (i: number) => input(w.transcripts[kind], prompt, `${kind}-${i}`);
    const warm = series(cmd, { runs, maxSeconds: 30, stdin });
    row(size, label, warm, injected(warm.first.stdout));
    peaks.push(warm.rssMB);
    if (kind === "english") warmEnglish = warm;
  }
  const prompt = w.english.at(-1)!;
  const english = (what: string) => (i: number) => input(w.transcripts.english, prompt, `${what}-${i}`);

  const stop = await startServer(w.root);
  let served: Series;
  try {
    served = series(cmd, { runs, maxSeconds: 30, stdin: english("served") });
  } finally {
    await stop();
  }
  row(size, "English, a gateway running on the vault", served, injected(served.first.stdout));
  peaks.push(served.rssMB);

  const idle: Run[] = [];
  for (let i = 0; i < idles; i++) {
    timedRun(cmd, { stdin: english("before-idle")(i) });
    Bun.sleepSync(IDLE_MS);
    idle.push(timedRun(cmd, { stdin: english("idle")(i) }));
  }
  if (idle.length > 0)
    startup.runs(size, `English, the first prompt after ${IDLE_MS / 1000} s idle (${idles}×)`, idle);

  // After every warm row: an edit leaves its folder to be compared again for a moment (_workload.ts).
  const edited = runsAfterEdits(cmd, w.cards, edits, english("edit"));
  startup.runs(size, `English, the first prompt after editing one card (${edits}×)`, edited);
  const inPlace = runsAfterEdits(cmd, w.cards, edits, english("in-place"), editInPlace);
  startup.runs(size, `English, the first prompt after an edit written in place (${edits}×)`, inPlace);
  peaks.push(...[...idle, ...edited, ...inPlace].map((r) => r.rssMB));

  goals.push(...startGoals("hook", size, floor, warmEnglish!, cpu(edited), cpu(inPlace), 4));
  goals.push(ratioGoal("hook with a gateway on the vault, CPU p50", size, served, floor, "the floor", 2));
  if (idle.length > 0)
    goals.push(afterGoal(`hook after ${IDLE_MS / 1000} s idle`, size, warmEnglish!, cpu(idle)));
  goals.push(peakGoal("hook, peak RSS of every row", size, Math.max(...peaks)));
}
console.log(
  `hook cold start: ${bin}, up to ${runs} runs per row, 3-turn transcript, warm index, Bun ${Bun.version}`,
);
console.log(table(rows));
reportGoals("hook", goals);
