// The editor's "What it costs" panel in Chromium: the compiled binary serves the page over a vault whose
// state holds a few measured turns; the panel draws a bar pair per day of the last week, says
// what was saved, names the blamed card, and breaks none of the page's Content-Security-Policy.
// Skipped, with a message, when /usr/bin/chromium is absent.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import type { Browser, Page } from "playwright-core";
import { openStore, stateUrl } from "../../src/state/index.ts";
import { turnRecord, usage } from "../state/contract.ts";
import { ensureBinary } from "../support/binary.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/e2e/ui-stats.test.ts: skipped, ${CHROMIUM} is missing`);

setDefaultTimeout(30_000);
let root = "";
let server: ReturnType<typeof Bun.spawn> | undefined;
let browser: Browser;
let page: Page;
const violations: string[] = [];

async function seed(): Promise<void> {
  const store = await openStore(stateUrl(root), { warn: () => {} });
  const now = Date.now();
  const early = {
    tier: "stable" as const,
    where: "system",
    text: "s".repeat(200),
    cards: ["people/Alice"],
    early: true,
  };
  await store.recordTurn(turnRecord("chat-1", 1, now - 86_400_000));
  await store.recordUsage("chat-1", 1, usage(200, 3000), now - 86_400_000);
  await store.recordTurn(
    turnRecord("chat-1", 2, now, { promptChars: 8000, sharedChars: 6000, blocks: [early] }),
  );
  await store.recordUsage("chat-1", 2, usage(4000), now);
  await store.close();
}

async function startServer(bin: string): Promise<string> {
  const proc = Bun.spawn([bin, "ui", "--vault", root, "--port", "0"], {
    env: { PATH: process.env.PATH ?? "", HOME: root },
    stdout: "ignore",
    stderr: "pipe",
  });
  server = proc;
  let text = "";
  for await (const chunk of proc.stderr) {
    text += new TextDecoder().decode(chunk);
    const m = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(text);
    if (m) return m[1]!;
  }
  throw new Error(`lorecards ui did not start: ${text}`);
}

describe.skipIf(!hasChromium)("the What it costs panel in Chromium", () => {
  beforeAll(async () => {
    const bin = await ensureBinary();
    root = makeVault();
    await seed();
    const base = await startServer(bin);
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${base}/`);
  });
  afterAll(async () => {
    await browser?.close();
    server?.kill();
    await server?.exited;
    if (root) removeDir(root);
  });

  test("opening it draws two bars a day for a week (as stats does), the totals, the saving and the blamed card", async () => {
    await page.locator("#stats summary").click();
    const body = page.locator("#stats .panel-body");
    await body.locator(".stats-chart").waitFor();
    expect(await body.locator(".stats-chart rect").count()).toBe(14);
    expect(await body.locator(".stats-chart rect.cost").count()).toBe(7);
    const summary = (await body.locator(".summary").textContent()) ?? "";
    expect(summary).toContain("Last 7 days: 2 turns");
    expect(summary).toContain("strip-and-reinject would have cost");
    expect(await body.locator(".blame").textContent()).toContain("people/Alice (1)");
    expect(await body.locator(".stats-list li").count()).toBe(1);
    expect(violations).toEqual([]);
  });
});
