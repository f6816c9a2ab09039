/**
 * The editor's first paint and keystrokes (bench/_editor.ts) on an empty vault, the real 761-entry book
 * (`../shared/fixtures/real/sora_Eldoria_V10.6.0.json`, imported) and a generated vault, at desktop and
 * phone sizes, each beside the empty vault's figure measured in the same run, and against the goals.
 * Needs the compiled binary (`bun build.ts`) and /usr/bin/chromium.
 *
 *   bun bench/editor.ts [--cards 10000] [--runs 7]
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPlaywright } from "../test/support/playwright.ts";
import { EDITOR_GOALS, type EditorFigures, measureEditors, SIZES } from "./_editor.ts";
import { type GoalRow, reportGoals } from "./_goals.ts";
import { writeVault } from "./gen-vault.ts";

const CHROMIUM = "/usr/bin/chromium";
const BIN = join(import.meta.dir, "..", "dist", "lorecards");
const BOOK = join(import.meta.dir, "..", "..", "shared", "fixtures", "real", "sora_Eldoria_V10.6.0.json");

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

async function serve(vault: string): Promise<{ url: string; stop: () => void }> {
  const proc = Bun.spawn([BIN, "ui", "--vault", vault, "--port", "0"], { stderr: "pipe", stdout: "ignore" });
  const reader = proc.stderr.getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`lorecards ui did not start: ${text}`);
    text += new TextDecoder().decode(value);
    const m = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(text);
    if (m) return { url: m[1]!, stop: () => proc.kill() };
  }
}

if (import.meta.main) {
  if (!existsSync(CHROMIUM) || !existsSync(BIN)) {
    console.error(`bench/editor.ts needs ${CHROMIUM} and ${BIN} (bun build.ts)`);
    process.exit(2);
  }
  const cards = arg("--cards", 10_000);
  const runs = arg("--runs", 5);
  const work = mkdtempSync(join(tmpdir(), "lc-editor-bench-"));
  const vaults: [string, string][] = [["empty", join(work, "empty")]];
  mkdirSync(vaults[0]![1]);
  if (existsSync(BOOK)) {
    const book = join(work, "book");
    mkdirSync(book);
    Bun.spawnSync([BIN, "import", BOOK, "--vault", book]);
    vaults.push(["761-entry book", book]);
  }
  const generated = join(work, "generated");
  writeVault(generated, cards);
  vaults.push([`${cards.toLocaleString("en")} cards`, generated]);

  const { chromium } = await loadPlaywright();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  const figures = new Map<string, EditorFigures>();
  const servers: { url: string; stop: () => void }[] = [];
  try {
    for (const [, vault] of vaults) servers.push(await serve(vault));
    for (const [size, options] of Object.entries(SIZES)) {
      const measured = await measureEditors(
        browser,
        servers.map((s) => s.url),
        options,
        { rounds: runs },
      );
      measured.forEach((f, i) => {
        figures.set(`${vaults[i]![0]}|${size}`, f);
      });
    }
  } finally {
    for (const s of servers) s.stop();
    await browser.close();
    rmSync(work, { recursive: true, force: true });
  }
  const rows: GoalRow[] = [];
  for (const [name] of vaults.slice(1)) {
    for (const size of Object.keys(SIZES)) {
      const base = figures.get(`empty|${size}`)!;
      const f = figures.get(`${name}|${size}`)!;
      const paint = f.firstPaint / base.firstPaint;
      const key = f.keystroke / base.keystroke;
      rows.push(
        {
          figure: `editor first paint (${size}), ${name}`,
          value: `${f.firstPaint.toFixed(0)} ms = ${paint.toFixed(2)}× empty (${base.firstPaint.toFixed(0)} ms)`,
          goal: `≤ ${EDITOR_GOALS.firstPaint}× empty`,
          met: paint <= EDITOR_GOALS.firstPaint,
        },
        {
          figure: `editor keystroke (${size}), ${name}`,
          value: `${f.keystroke.toFixed(1)} ms = ${key.toFixed(2)}× empty (${base.keystroke.toFixed(1)} ms)`,
          goal: `≤ ${EDITOR_GOALS.keystroke}× empty`,
          met: key <= EDITOR_GOALS.keystroke,
        },
      );
    }
  }
  reportGoals("The editor", rows);
}
