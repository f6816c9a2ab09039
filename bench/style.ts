/**
 * Style memory benchmark (issue 16), three tables:
 *
 * 1. The dictionary: its entries, the bytes of dictionary.yaml and of what the bundle carries (the
 *    entries and the compiled scanner, made by a Bun macro when the code is bundled), reading and
 *    checking the entries, building the automaton, and loading the compiled one instead.
 * 2. The cost per observed message in process, against baselines measured in the same run over the
 *    same messages: `text.toLowerCase()`, the engine's fold (match/fold.ts) and its typed-text
 *    cleanup (recall/typed-text.ts, which the gateway and the hook run on every user message
 *    anyway). Reading a message is the scan (automaton, emoji, traits: pure); observing it is that
 *    plus the store's transaction in a temporary vault's style.db.
 * 3. The same in the compiled binary, where it matters most: `lorecards hook` as Claude Code runs it
 *    (a fresh process per prompt), learning against `--no-learn`, runs interleaved so the machine's
 *    drift hits both alike. Skipped when there is no binary (`bun build.ts` makes one).
 *
 * Messages are generated (deterministic): chat lines in English and Chinese, 20 to 600 characters,
 * a third of them with a signal of the dictionary, some with code, links or a pasted log.
 *
 *   bun bench/style.ts [--messages 3000] [--hook-runs 30] [--bin dist/lorecards]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ms, option, percentile, table } from "./_stats.ts";

const started = performance.now();
const style = await import("../src/style/index.ts");
const imported = performance.now() - started;
const { builtInEntries } = await import("../src/style/built-in.ts");
const { builtInTables } = await import("../src/style/_built-in-tables.ts");
const { readDictionary } = await import("../src/style/dictionary.ts");
const { dictionaryReader, loadedReader, readMessage } = await import("../src/style/sightings.ts");
const { fold } = await import("../src/match/fold.ts");
const { typedText } = await import("../src/recall/typed-text.ts");
const dictionaryData = (await import("../src/style/dictionary.yaml")).default;

const count = Number(option("--messages", "3000"));
const hookRuns = Number(option("--hook-runs", "30"));
const bin = path.resolve(option("--bin", path.join(import.meta.dir, "../dist/lorecards")));

/** mulberry32: the same messages every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EN = [
  "can you look at the failing test in the parser",
  "I think the second option reads better",
  "let's keep the old behaviour for now and revisit next week",
  "what does this error mean exactly",
  "thanks, that fixed it",
  "could you make the summary shorter and put the conclusion first",
  "the meeting moved to Thursday afternoon",
  "why is the build so slow on the CI machine",
];
const ZH = [
  "帮我看一下这个函数为什么报错",
  "我觉得第二个方案更好一点",
  "明天下午把文档整理一下发给我",
  "这个结论先放前面，细节后面再说",
  "今天的会议改到周四了",
  "能不能把这段话改得更口语一点",
];
const EXTRAS = [
  "```\nconst x = await fetch(url);\nconsole.log(x.status);\n```",
  "see https://example.com/docs/page?id=42",
  "`npm run build`",
  'Traceback (most recent call last):\n  File "main.py", line 3\nValueError: bad input',
];

function messages(n: number): string[] {
  const rnd = random(16);
  const terms = builtInEntries().map((e) => e.term);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const zh = rnd() < 0.4;
    const pool = zh ? ZH : EN;
    const parts: string[] = [];
    const target = 20 + Math.floor(rnd() ** 2 * 580);
    while (parts.join(" ").length < target) parts.push(pool[Math.floor(rnd() * pool.length)]!);
    if (rnd() < 0.33)
      parts.splice(Math.floor(rnd() * parts.length), 0, terms[Math.floor(rnd() * terms.length)]!);
    if (rnd() < 0.15) parts.push(terms[Math.floor(rnd() * terms.length)]!);
    if (rnd() < 0.1) parts.push(EXTRAS[Math.floor(rnd() * EXTRAS.length)]!);
    out.push(parts.join(zh ? "，" : " "));
  }
  return out;
}

/** Microseconds per call of `fn` over every message, after a warm-up pass. */
async function perMessage(texts: string[], fn: (text: string, i: number) => unknown): Promise<number[]> {
  for (let i = 0; i < Math.min(200, texts.length); i++) await fn(texts[i]!, i);
  const samples: number[] = [];
  for (let i = 0; i < texts.length; i++) {
    const s = performance.now();
    await fn(texts[i]!, i);
    samples.push((performance.now() - s) * 1000);
  }
  return samples;
}

function median(fn: () => unknown, runs = 15): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    fn();
    samples.push(performance.now() - s);
  }
  return percentile(samples, 50);
}

const us = (v: number) => `${v < 10 ? v.toFixed(2) : v.toFixed(1)} µs`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function dictionaryTable(): void {
  const entries = builtInEntries();
  const tables = builtInTables();
  const yamlBytes = fs.statSync(path.join(import.meta.dir, "../src/style/dictionary.yaml")).size;
  const carried = Buffer.byteLength(JSON.stringify(tables));
  const read = median(() => readDictionary(dictionaryData, "dictionary", "dictionary.yaml"));
  const build = median(() => dictionaryReader(entries));
  const load = median(() => loadedReader(tables));
  console.log("Style dictionary (warm, in process)");
  console.log(
    table([
      [
        "entries",
        "dictionary.yaml",
        "in the bundle",
        "import (source, runs the macro)",
        "read entries",
        "build",
        "load built",
      ],
      [entries.length, kb(yamlBytes), kb(carried), ms(imported), ms(read), ms(build), ms(load)],
    ]),
  );
}

async function perMessageTable(): Promise<void> {
  const texts = messages(count);
  const chars = texts.reduce((n, t) => n + t.length, 0) / texts.length;
  const reader = dictionaryReader(builtInEntries());
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "lc-style-bench-"));
  try {
    const book = await style.openStyle(root, { warn: () => {} });
    const baseline = await perMessage(texts, (t) => typedText(t));
    const figures: [string, number[]][] = [
      ["text.toLowerCase()", await perMessage(texts, (t) => t.toLowerCase())],
      ["fold (match/fold.ts)", await perMessage(texts, (t) => fold(t))],
      ["typedText (baseline)", baseline],
      ["read: scan for signals", await perMessage(texts, (t) => readMessage(t, reader))],
      ["observe: read + store", await perMessage(texts, (t, i) => book.observe(`c${i % 40}`, t))],
    ];
    const habits = await book.list();
    await book.close();
    const base = percentile(baseline, 50);
    const rows: (string | number)[][] = [["per message", "p50", "p99", "÷ typed-text p50"]];
    for (const [name, samples] of figures) {
      const p50 = percentile(samples, 50);
      rows.push([name, us(p50), us(percentile(samples, 99)), `${(p50 / base).toFixed(1)}×`]);
    }
    console.log(
      `\nCost per observed message, in process (${count} messages, ${chars.toFixed(0)} characters on average)`,
    );
    console.log(table(rows));
    const active = habits.filter((h) => h.state === "active").length;
    console.log(`(${habits.length} habits learned from them, ${active} active)`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

function hookTable(): void {
  if (!fs.existsSync(bin)) {
    console.log(
      `\nThe hook with and without learning: skipped, no binary at ${bin} (bun build.ts makes one)`,
    );
    return;
  }
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "lc-style-hook-"));
  try {
    const vault = path.join(home, "vault");
    const env = { ...process.env, HOME: home, LORECARDS_VAULT: vault };
    Bun.spawnSync([bin, "init", vault], { env, stdout: "ignore", stderr: "ignore" });
    const texts = messages(hookRuns + 1);
    const run = (i: number, learn: boolean) => {
      const prompt = JSON.stringify({
        hook_event_name: "UserPromptSubmit",
        session_id: `s${i}`,
        prompt: texts[i],
      });
      const args = [bin, "hook", "--no-log", ...(learn ? [] : ["--no-learn"])];
      const started = performance.now();
      const proc = Bun.spawnSync(args, { env, stdin: new Blob([prompt]), stdout: "ignore", stderr: "pipe" });
      if (proc.exitCode !== 0) throw new Error(`hook failed: ${proc.stderr.toString().slice(0, 300)}`);
      return performance.now() - started;
    };
    run(hookRuns, true); // untimed: makes style.db and warms the page cache
    run(hookRuns, false);
    const learning: number[] = [];
    const not: number[] = [];
    for (let i = 0; i < hookRuns; i++) {
      learning.push(run(i, true));
      not.push(run(i, false));
    }
    const [a, b] = [percentile(learning, 50), percentile(not, 50)];
    console.log(`\nThe compiled hook, a fresh process per prompt (${hookRuns} runs each, interleaved)`);
    console.log(
      table([
        ["hook", "p50", "p99"],
        ["learning (the default)", ms(a), ms(percentile(learning, 99))],
        ["--no-learn", ms(b), ms(percentile(not, 99))],
        ["cost of one cold observation", ms(a - b), ""],
      ]),
    );
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

dictionaryTable();
await perMessageTable();
hookTable();
