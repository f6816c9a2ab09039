/**
 * Cold-start benchmark of `lorecards hook`, the compiled binary as Claude Code runs it: a fresh process
 * per prompt, hook JSON on stdin, a 3-turn JSONL transcript, on generated vaults with a warm index.
 * English and Chinese prompts; p50 wall and CPU time and peak RSS of the child process, and the CPU p50
 * as a multiple of the floor's (a compiled hello-world measured in the same run, _floor.ts). A third row
 * puts 3 MB of tool calls and results before the last reply, as in a busy coding session (_workload.ts
 * writes the transcripts). These rows are the hook in a process of its own. In a vault over
 * STAT_ALL_MAX cards, the first prompt finds no keeper (vault/keeper.ts), compares every file and
 * starts one, which then answers the hook over the vault's socket: that first prompt is a row, the
 * own-process rows are run with the keeper's socket set aside (the keeper still tells them what
 * changed), and the keeper answering is a row of its own. Then:
 * - the same prompt with a gateway running on the vault, which answers the hook over its socket;
 * - the first prompt after the vault sat idle for 61 s (past the periodic full check's minute);
 * - one card at a time edited the way an editor saves it (atomically, then written in place as VS Code
 *   and Obsidian do), and the next prompt, which must see the edit;
 * these three as users get them (a large vault's keeper answering), timed against such a prompt.
 * A large vault's keeper is stopped when the benchmark ends.
 *
 *   bun bench/hook.ts [--bin dist/lorecards] [--sizes 1000,10000,100000] [--runs 30] [--edits 5]
 *                     [--idles 2] [--floor BIN] [--vaults DIR]
 */
import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { STAT_ALL_MAX } from "../src/vault/keeper.ts";
import { until } from "../test/support/wait.ts";
import { type Run, type Series, series, timedRun } from "./_floor.ts";
import { afterGoal, type GoalRow, peakGoal, ratioGoal, reportGoals, startGoals } from "./_goals.ts";
import { option, table } from "./_stats.ts";
import {
  editInPlace,
  keeperPid,
  runsAfterEdits,
  startupRun,
  stopKeeper,
  type Workload,
  workload,
} from "./_workload.ts";

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

/**
 * How long the keeper may take to come up: its first full check runs at a low priority (cli/_self.ts),
 * which on a machine kept busy by other work can take it minutes.
 */
const KEEPER_UP_MS = 600_000;
const socketOf = (root: string) => join(root, ".lorecards", "hook.sock");

/** A gateway on the vault (its upstream never asked), up once its hook socket is; stopped by the caller. */
async function startServer(root: string): Promise<() => Promise<void>> {
  const socket = socketOf(root);
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
  const prompt = w.english.at(-1)!;
  const english = (what: string) => (i: number) => input(w.transcripts.english, prompt, `${what}-${i}`);
  const peaks: number[] = [];
  const large = size > STAT_ALL_MAX;
  if (large) {
    // No keeper yet: the first prompt compares every file itself and starts one.
    stopKeeper(w.root);
    await until(() => keeperPid(w.root) === undefined, "the keeper to leave");
    const first = timedRun(cmd, { stdin: english("first")(0) });
    startup.runs(size, "English, the first prompt, no keeper yet (it compares every file)", [first]);
    peaks.push(first.rssMB);
    await until(() => existsSync(socketOf(w.root)), "the keeper to answer hooks", KEEPER_UP_MS);
  }
  // Every prompt in a process of its own: the keeper's socket (a large vault's) set aside meanwhile,
  // so the hook finds no server to ask, as with no keeper answering or a vault of at most STAT_ALL_MAX.
  const alone = (run: () => Series): Series => {
    if (!large) return run();
    renameSync(socketOf(w.root), `${socketOf(w.root)}.aside`);
    try {
      return run();
    } finally {
      renameSync(`${socketOf(w.root)}.aside`, socketOf(w.root));
    }
  };
  let warmEnglish: Series | undefined;
  for (const [label, language, kind] of VARIANTS) {
    const stdin = (i: number) => input(w.transcripts[kind], w[language].at(-1)!, `${kind}-${i}`);
    const warm = alone(() => series(cmd, { runs, maxSeconds: 30, stdin }));
    row(size, `${label}${large ? ", in its own process" : ""}`, warm, injected(warm.first.stdout));
    peaks.push(warm.rssMB);
    if (kind === "english") warmEnglish = warm;
  }
  /** What a prompt costs as users get it: asked of the keeper in a large vault, else in its own process. */
  let usual = warmEnglish!;
  if (large) {
    usual = series(cmd, { runs, maxSeconds: 30, stdin: english("kept") });
    row(size, "English, the vault's keeper answering", usual, injected(usual.first.stdout));
    peaks.push(usual.rssMB);
    // The keeper holds the socket: the gateway would find it taken.
    stopKeeper(w.root);
    await until(() => keeperPid(w.root) === undefined, "the keeper to leave");
  }

  const stop = await startServer(w.root);
  let served: Series;
  try {
    served = series(cmd, { runs, maxSeconds: 30, stdin: english("served") });
  } finally {
    await stop();
  }
  row(size, "English, a gateway running on the vault", served, injected(served.first.stdout));
  peaks.push(served.rssMB);
  if (large) {
    // A keeper again, for the rows below as users meet them.
    peaks.push(timedRun(cmd, { stdin: english("again")(0) }).rssMB);
    await until(() => existsSync(socketOf(w.root)), "the keeper to answer hooks", KEEPER_UP_MS);
  }

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
  const inPlace = runsAfterEdits(cmd, w.cards, edits, english("in-place"), editInPlace);
  if (edits > 0) {
    startup.runs(size, `English, the first prompt after editing one card (${edits}×)`, edited);
    startup.runs(size, `English, the first prompt after an edit written in place (${edits}×)`, inPlace);
  }
  peaks.push(...[...idle, ...edited, ...inPlace].map((r) => r.rssMB));

  // The cold goal is the hook in its own process; the rows after an idle minute or an edit are as
  // users get them, against a prompt as users get it.
  const [cold, coldRss] = startGoals("hook", size, floor, warmEnglish!, [], [], 4);
  goals.push({ ...cold!, figure: "hook in its own process, CPU p50" }, coldRss!);
  if (large) goals.push(ratioGoal("hook, the keeper answering, CPU p50", size, usual, floor, "the floor", 2));
  if (edits > 0) {
    goals.push(afterGoal("hook after editing one card", size, usual, cpu(edited)));
    goals.push(afterGoal("hook after an edit written in place", size, usual, cpu(inPlace)));
  }
  goals.push(ratioGoal("hook with a gateway on the vault, CPU p50", size, served, floor, "the floor", 2));
  if (idle.length > 0) goals.push(afterGoal(`hook after ${IDLE_MS / 1000} s idle`, size, usual, cpu(idle)));
  goals.push(peakGoal("hook, peak RSS of every row", size, Math.max(...peaks)));
}
console.log(
  `hook cold start: ${bin}, up to ${runs} runs per row, 3-turn transcript, warm index, Bun ${Bun.version}`,
);
console.log(table(rows));
reportGoals("hook", goals);
