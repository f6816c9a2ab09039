/**
 * Cold-start benchmark of `lorecards hook`, the compiled binary as Claude Code runs it: a fresh process
 * per prompt, hook JSON on stdin, a 3-turn JSONL transcript, on generated 1k and 10k-card vaults with a
 * warm index. English and Chinese prompts; p50/p99 wall time and peak RSS of the child process.
 * A third row puts 3 MB of tool calls and results before the last reply, as in a busy coding session.
 * Targets (bench/README.md): p50 ≤ 25 ms on 1k cards without Chinese, ≤ 60 ms with Chinese, ≤ 100 ms on 10k;
 * RSS ≤ 60 MB on 1k cards. A `--version` row gives the runtime's own start on the same binary.
 *
 *   bun bench/hook.ts [--bin dist/lorecards] [--sizes 1000,10000] [--runs 40]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateCards, sampleWindow } from "./_gen.ts";
import { ms, percentile, table } from "./_stats.ts";
import { writeVault } from "./gen-vault.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : fallback;
}

const bin = arg("--bin", "dist/lorecards");
const sizes = arg("--sizes", "1000,10000").split(",").map(Number);
const runs = Number(arg("--runs", "40"));

/** Prompt language, and bytes of tool output between the earlier turns and the prompt. */
const VARIANTS: [string, boolean, number][] = [
  ["English", false, 0],
  ["Chinese", true, 0],
  ["English, 3 MB of tool output", false, 3 * 1024 * 1024],
];

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
  return messages[messages.length - 1]!;
}

function runOnce(vault: string, stdin: string): { ms: number; rssMB: number; out: string } {
  const started = performance.now();
  const proc = Bun.spawnSync([bin, "hook", "--vault", vault, "--no-log"], {
    stdin: new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const elapsed = performance.now() - started;
  if (proc.exitCode !== 0 || proc.stderr.length > 0)
    throw new Error(`hook failed: ${proc.stderr.toString()}`);
  // resourceUsage.maxRSS is in bytes (kilobytes from getrusage, scaled by Bun).
  const rss = proc.resourceUsage?.maxRSS ?? 0;
  return { ms: elapsed, rssMB: rss / 1024 / 1024, out: proc.stdout.toString() };
}

const rows: (string | number)[][] = [["cards", "prompt", "p50", "p99", "max RSS", "injected (first run)"]];
// The runtime's own start on the same binary, which no change of ours can go below.
{
  const times: number[] = [];
  let rss = 0;
  for (let i = 0; i <= runs; i++) {
    const started = performance.now();
    const proc = Bun.spawnSync([bin, "--version"], { stdout: "pipe", stderr: "pipe" });
    if (i > 0) times.push(performance.now() - started); // the first run warms the page cache
    rss = Math.max(rss, (proc.resourceUsage?.maxRSS ?? 0) / 1024 / 1024);
  }
  rows.push([
    "-",
    "--version (runtime start)",
    ms(percentile(times, 50)),
    ms(percentile(times, 99)),
    `${rss.toFixed(1)} MB`,
    "-",
  ]);
}
for (const size of sizes) {
  const dir = mkdtempSync(join(tmpdir(), "lc-bench-hook-"));
  try {
    writeVault(dir, size);
    const cards = generateCards(size);
    for (const [label, chinese, toolBytes] of VARIANTS) {
      const transcript = join(dir, `t-${label}.jsonl`);
      const prompt = writeTranscript(transcript, sampleWindow(cards, 7, chinese), toolBytes);
      const input = (session: string) =>
        JSON.stringify({
          hook_event_name: "UserPromptSubmit",
          session_id: session,
          transcript_path: transcript,
          cwd: dir,
          prompt,
        });
      runOnce(dir, input("warm-up")); // builds the persisted index once, as a first prompt would
      const times: number[] = [];
      let rss = 0;
      let injected = 0;
      for (let i = 0; i < runs; i++) {
        // A fresh session each time: the full path, cards injected.
        const r = runOnce(dir, input(`${size}-${label}-${i}`));
        times.push(r.ms);
        rss = Math.max(rss, r.rssMB);
        if (i === 0)
          injected = r.out
            ? (JSON.parse(r.out).hookSpecificOutput.additionalContext.match(/^### /gm) ?? []).length
            : 0;
      }
      rows.push([
        size,
        label,
        ms(percentile(times, 50)),
        ms(percentile(times, 99)),
        `${rss.toFixed(1)} MB`,
        injected,
      ]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(
  `hook cold start: ${bin}, ${runs} runs per row, 3-turn transcript, warm index, Bun ${Bun.version}`,
);
console.log(table(rows));
