/**
 * The first hook after an edit written in place (VS Code's and Obsidian's save: the same file, its
 * folder's mtime untouched) must send the new text. On generated vaults (1k and 100k cards by
 * default, warm index), each edit adds a line to a card, the next prompt names that card, and the
 * hook's answer must hold the new line (the edit's number is unique to the run); the time of that
 * first hook is given as a ratio to the warm p50 of the same prompt, run just before each edit. A run
 * in which any answer misses its edit exits 1.
 *
 *   bun bench/in-place.ts [--bin dist/lorecards] [--sizes 1000,100000] [--runs 3] [--edits 5]
 *                         [--vaults DIR]
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { timedRun } from "./_floor.ts";
import { ms, option, percentile, ratio, table } from "./_stats.ts";
import { editInPlace, vaultsDir, workload } from "./_workload.ts";

const bin = option("--bin", "dist/lorecards");
const sizes = option("--sizes", "1000,100000").split(",").map(Number);
const runs = Number(option("--runs", "3"));
const edits = Number(option("--edits", "5"));
const vaults = vaultsDir(option("--vaults", "") || undefined);

/** A card's title (the generated cards state one), else its file name. */
function titleOf(file: string): string {
  return /^title: "(.+)"$/m.exec(readFileSync(file, "utf8"))?.[1] ?? basename(file, ".md");
}

/** Longer than the index's racy window (vault/catalog.ts RACY_MS, 2 s), as _workload.ts spaces its edits. */
const SETTLE_MS = 2500;

const rows: (string | number)[][] = [
  ["cards", "warm p50", "first hook after an in-place edit, p50", "÷ warm", "answers with the new text"],
];
let missed = 0;
for (const size of sizes) {
  const w = workload(vaults, size);
  const cmd = [bin, "hook", "--vault", w.root, "--no-log"];
  let session = 0;
  const input = (card: string) =>
    JSON.stringify({
      hook_event_name: "UserPromptSubmit",
      session_id: `${process.pid}-${size}-${session++}`,
      transcript_path: w.transcripts.english,
      cwd: w.root,
      prompt: `Any news from ${titleOf(card)}?`,
    });
  timedRun(cmd, { stdin: input(w.cards[0]!) }); // builds a missing index, starts a large vault's keeper
  // Each edit's warm runs come just before it, naming the same card: a busy machine slows both alike.
  const warm: number[] = [];
  const after: number[] = [];
  let seen = 0;
  // People cards with a Latin name, spread over the folder, so the prompt is the English row's kind
  // (a Chinese one loads the segmenter too).
  const people = readdirSync(join(w.root, "people")).filter((f) => /^[\x20-\x7e]+\.md$/.test(f));
  const step = Math.max(1, Math.floor(people.length / edits));
  const latin = people
    .filter((_, i) => i % step === 0)
    .slice(0, edits)
    .map((f) => join(w.root, "people", f));
  for (const [i, card] of latin.entries()) {
    Bun.sleepSync(SETTLE_MS);
    for (let r = 0; r < runs; r++) warm.push(timedRun(cmd, { stdin: input(card) }).ms);
    const n = process.pid * 1000 + i;
    editInPlace(card, n);
    const first = timedRun(cmd, { stdin: input(card) });
    after.push(first.ms);
    if (first.stdout.includes(`Edited in place by the benchmark (${n}).`)) seen++;
  }
  missed += after.length - seen;
  const p50 = percentile(after, 50);
  const warmP50 = percentile(warm, 50);
  rows.push([
    size.toLocaleString("en"),
    ms(warmP50),
    ms(p50),
    ratio(p50, warmP50),
    `${seen} of ${after.length}`,
  ]);
}
console.log(
  `hook after an edit written in place: ${bin}, warm index, ${runs} warm runs per edit, Bun ${Bun.version}`,
);
console.log(table(rows));
if (missed > 0) {
  console.error(`${missed} answer(s) after an in-place edit did not hold the new text`);
  process.exit(1);
}
