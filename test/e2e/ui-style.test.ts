// The editor's "Style memory" panel in Chromium: the compiled binary serves the page over a vault whose
// style book has learned a few habits; the panel groups them by state, pins and forgets them, pauses
// and resumes learning, shows the health score as `lorecards style score` gives it and the brief, each
// change landing in style.db, with no Content-Security-Policy violation. Skipped, with a message, when /usr/bin/chromium is absent.
import { beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { openStyle } from "../../src/style/index.ts";
import { runBinary } from "../support/binary.ts";
import {
  type EditorInChromium,
  editorOverVault,
  haveChromium,
  openPanel,
} from "../support/editor-browser.ts";
import { until } from "../support/wait.ts";

const hasChromium = haveChromium("test/e2e/ui-style.test.ts");

let root = "";
let editor: EditorInChromium;
let page: Page;

async function book<T>(fn: (b: Awaited<ReturnType<typeof openStyle>>) => Promise<T>): Promise<T> {
  const b = await openStyle(root);
  try {
    return await fn(b);
  } finally {
    await b.close();
  }
}

async function seed(): Promise<void> {
  await book(async (b) => {
    await b.observe("c1", "no cap, ship it lol");
    await b.observe("c2", "no cap ✨");
    await b.observe("c2", "yyds 绝绝子");
  });
}

const row = (signal: string) =>
  page.locator("#style .style-habit", { has: page.locator(".signal", { hasText: signal }) });

describe.skipIf(!hasChromium)("the Style memory panel in Chromium", () => {
  const it = editorOverVault(async (vault) => {
    root = vault;
    await seed();
  });
  beforeAll(() => {
    ({ editor, page } = it);
    page.on("dialog", (d) => void d.accept());
  });

  test("opening it lists the habits by state: active ones first, then the candidates", async () => {
    await openPanel(page, "style");
    await row("no cap").waitFor();
    const groups = await page.locator("#style .style-group h3").allTextContents();
    expect(groups[0]).toStartWith("Active");
    expect(groups[1]).toStartWith("Candidates");
    expect(await page.locator("#style .style-group").first().textContent()).toContain("no cap");
    expect(await row("no cap").locator(".seen").textContent()).toBe("2× in 2 conversations");
  });

  test("the health score is the command line's: the score, each part in words, and the advice", async () => {
    const cli = await runBinary(["style", "score", "--json", "--vault", root]);
    expect(cli.code).toBe(0);
    const score = JSON.parse(cli.stdout);
    expect(score.readiness.level).toBe("warming");
    const box = page.locator("#style .style-score");
    expect(await box.locator("h3").textContent()).toBe(`Health: ${score.score}/100`);
    const parts = await box.locator(".score-part").allTextContents();
    expect(parts[0]).toBe(
      `Readinesswarming (warming up: ${score.readiness.active} of the 3 active habits a brief needs to name, ${score.readiness.candidates} candidates)`,
    );
    expect(parts[1]).toStartWith(`Drift risk${score.drift.level} `);
    expect(parts[2]).toStartWith(`Over-imitation risk${score.over_imitation.level} `);
    expect(await box.locator(".score-advice li").allTextContents()).toEqual(score.advice);
  });

  test("pin and forget change the book, and the list follows", async () => {
    await row("no cap").getByRole("button", { name: "Pin no cap" }).click();
    await row("no cap").getByRole("button", { name: "Unpin no cap" }).waitFor();
    expect((await book((b) => b.list())).find((h) => h.signal === "no cap")?.pinned).toBe(true);
    await row("yyds").getByRole("button", { name: "Forget yyds" }).click();
    await until(async () => (await row("yyds").count()) === 0, "yyds to leave the list");
    expect((await book((b) => b.list())).some((h) => h.signal === "yyds")).toBe(false);
    expect(await page.locator("#toasts").textContent()).toContain("Forgot “yyds”");
  });

  test("pause and resume learning from the panel", async () => {
    await page.getByRole("button", { name: "Pause learning" }).click();
    await page.getByRole("button", { name: "Resume learning" }).waitFor();
    expect(await book((b) => b.learning())).toBe(false);
    await page.getByRole("button", { name: "Resume learning" }).click();
    await page.getByRole("button", { name: "Pause learning" }).waitFor();
    expect(await book((b) => b.learning())).toBe(true);
  });

  test("the brief a model would get, with its revision, and no policy violation anywhere", async () => {
    await page.getByRole("button", { name: "Show the brief" }).click();
    const brief = page.locator("#style .style-brief");
    await brief.waitFor();
    const text = (await brief.textContent()) ?? "";
    expect(text).toContain("no cap");
    expect(text).toMatch(/^Style brief \(revision \d+\)/);
    expect(editor.violations).toEqual([]);
  });
});
