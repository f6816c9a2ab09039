/**
 * What the start-up benchmarks run against: a generated vault of N cards and the conversation they
 * send it. The cards are generated in a child process (`bun bench/_workload.ts DIR N`), which writes
 * the vault when DIR does not hold one yet and prints the workload as JSON: the measuring process
 * stays small, so the RSS it reads of its children is theirs (_floor.ts). Vaults live under one
 * directory by size: a script's own temp directory, or the `--vaults DIR` that `bench/run.ts` shares
 * between scripts so a 100k-card vault is generated and indexed once.
 */
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { floorBinary, floorSeries, type Run, type RunOptions, StartupTable, timedRun } from "./_floor.ts";
import { generateCards, sampleWindow } from "./_gen.ts";
import { option } from "./_stats.ts";
import { writeVault } from "./gen-vault.ts";

/**
 * Longer than the index's racy window (vault/catalog.ts RACY_MS, 2 s): a folder changed less than
 * that before a run is compared again by the next one, so edits are spaced by this much.
 */
const SETTLE_MS = 2500;

export interface Workload {
  root: string;
  /** A 3-turn window (7 messages) naming a few cards, in English and in Chinese. */
  english: string[];
  chinese: string[];
  /** Card files spread over the vault, for edits (absolute paths). */
  cards: string[];
  /**
   * Claude Code transcripts (JSONL) of the window before its last message: in English, in Chinese,
   * and in English with 3 MB of tool calls and results before the last reply.
   */
  transcripts: { english: string; chinese: string; toolOutput: string };
}

/** Where vaults of each size live; removed on exit unless it was given (`--vaults DIR`). */
export function vaultsDir(given: string | undefined): string {
  if (given) return given;
  const dir = mkdtempSync(join(tmpdir(), "lc-bench-vaults-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The vault of `count` cards under `dir` (written by a child process when missing) and its workload. */
export function workload(dir: string, count: number): Workload {
  const proc = Bun.spawnSync([process.execPath, join(import.meta.dir, "_workload.ts"), dir, String(count)], {
    stdout: "pipe",
    stderr: "inherit",
  });
  if (proc.exitCode !== 0) throw new Error(`generating ${count} cards failed`);
  const w = JSON.parse(proc.stdout.toString()) as Workload;
  // A large vault's first cold runs start its keeper: it leaves with the benchmark.
  process.on("exit", () => stopKeeper(w.root));
  return w;
}

/**
 * Edit a card as an editor saves it: the new text goes to a temp file in the same folder, which is
 * renamed over the card. The card keeps its keywords; its body gains a line.
 */
export function editCard(file: string, n: number): void {
  const temp = join(dirname(file), `.${basename(file)}.bench-${process.pid}`);
  writeFileSync(temp, `${readFileSync(file, "utf8").trimEnd()}\n\nEdited by the benchmark (${n}).\n`);
  renameSync(temp, file);
}

/**
 * Edit a card as VS Code and Obsidian save it: written into the file in place (same inode), so its
 * folder's mtime stays as it was and only the file tells (vault/keeper.ts).
 */
export function editInPlace(file: string, n: number): void {
  const text = `${readFileSync(file, "utf8").trimEnd()}\n\nEdited in place by the benchmark (${n}).\n`;
  const fd = openSync(file, "r+");
  ftruncateSync(fd, 0);
  writeSync(fd, text, 0);
  closeSync(fd);
}

/** Stop the keeper a cold process started for the vault at `root` (vault/keeper.ts), if one runs. */
export function stopKeeper(root: string): void {
  const pid = keeperPid(root);
  if (pid === undefined) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // gone already
  }
}

/** The pid a vault's keeper.json names (vault/keeper.ts), or undefined when there is none. */
export function keeperPid(root: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(root, ".lorecards", "keeper.json"), "utf8")) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

/**
 * The first run of `cmd` after each of `count` edits, one card at a time (`edit`: an atomic save by
 * default, `editInPlace` for an editor that writes in place). Before the next edit the
 * vault settles (SETTLE_MS, then an untimed run), so each figure is one edit's, as when a person saves
 * a card and goes back to the conversation.
 */
export function runsAfterEdits(
  cmd: readonly string[],
  cards: readonly string[],
  count: number,
  stdin: (i: number) => string | undefined = () => undefined,
  edit: (file: string, n: number) => void = editCard,
): Run[] {
  const runs: Run[] = [];
  for (let i = 0; i < count; i++) {
    edit(cards[i % cards.length]!, i);
    const opts: RunOptions = { stdin: stdin(i) };
    runs.push(timedRun(cmd, opts));
    Bun.sleepSync(SETTLE_MS);
    timedRun(cmd, opts);
  }
  return runs;
}

/** Date every card file and folder under `root` an hour back: a vault that has been there a while. */
function age(root: string): void {
  const past = new Date(Date.now() - 3_600_000);
  for (const dir of readdirSync(root)) {
    for (const file of readdirSync(join(root, dir))) utimesSync(join(root, dir, file), past, past);
    utimesSync(join(root, dir), past, past);
  }
}

/**
 * A Claude Code transcript holding the window's earlier messages; the last message is the prompt. With
 * `toolBytes`, the last reply is preceded by that much tool output (Read calls and their results), as in
 * a busy coding session, so the earlier messages sit behind it.
 */
function writeTranscript(file: string, messages: string[], toolBytes = 0): string {
  const entry = (value: Record<string, unknown>) =>
    JSON.stringify({ sessionId: "bench", cwd: "/home/me/project", ...value });
  const earlier = messages.slice(0, -1);
  const lines = earlier.map((text, i) =>
    entry(
      i % 2 === 0
        ? { type: "user", message: { role: "user", content: text } }
        : { type: "assistant", message: { role: "assistant", content: [{ type: "text", text }] } },
    ),
  );
  const output = "line of a source file\n".repeat(2000);
  for (let i = 0; i * output.length * 2 < toolBytes; i++) {
    const id = `toolu_${i}`;
    const call = { type: "tool_use", id, name: "Read", input: { file_path: `/src/f${i}.ts` } };
    lines.splice(
      lines.length - 1,
      0,
      entry({ type: "assistant", message: { role: "assistant", content: [call] } }),
      entry({
        type: "user",
        message: { role: "user", content: [{ tool_use_id: id, type: "tool_result", content: output }] },
        toolUseResult: { file: { content: output } },
      }),
    );
  }
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

if (import.meta.main) {
  const [dir, count] = process.argv.slice(2);
  if (!dir || !count) {
    console.error("usage: bun bench/_workload.ts DIR COUNT");
    process.exit(2);
  }
  const n = Number(count);
  const root = join(dir, String(n));
  const started = performance.now();
  if (!existsSync(root)) {
    writeVault(root, n);
    age(root);
    console.error(`${n} cards written to ${root} in ${((performance.now() - started) / 1000).toFixed(2)} s`);
  }
  const cards = generateCards(n);
  const step = Math.max(1, Math.floor(cards.length / 40));
  const spread = cards.filter((_, i) => i % step === 0).slice(0, 40);
  const english = sampleWindow(cards, 7);
  const chinese = sampleWindow(cards, 7, true);
  // Beside the vault, not in it: the vault stays as the generator wrote it.
  const transcript = (name: string) => join(dir, `transcript-${n}-${name}.jsonl`);
  const out: Workload = {
    root,
    english,
    chinese,
    cards: spread.map((c) => join(root, c.dir, `${c.key}.md`)),
    transcripts: {
      english: writeTranscript(transcript("english"), english),
      chinese: writeTranscript(transcript("chinese"), chinese),
      toolOutput: writeTranscript(transcript("tool-output"), english, 3 * 1024 * 1024),
    },
  };
  console.log(JSON.stringify(out));
}

/** The options both start-up scripts (cold-start.ts, hook.ts) take, and the floor measured now. */
export function startupRun(what: string, last: string) {
  const bin = option("--bin", "dist/lorecards");
  const runs = Number(option("--runs", "30"));
  const table = new StartupTable(
    floorSeries(floorBinary(option("--floor", "") || undefined), runs),
    bin,
    runs,
    what,
    last,
  );
  return {
    bin,
    sizes: option("--sizes", "1000,10000,100000").split(",").map(Number),
    runs,
    edits: Number(option("--edits", "5")),
    vaults: vaultsDir(option("--vaults", "") || undefined),
    table,
  };
}
