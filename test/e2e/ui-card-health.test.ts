// The editor's "Recall and adoption" panel in Chromium: the compiled binary serves the page over a vault
// whose state holds a few index recalls and adoptions; the panel gives the counts per class, lists the
// cards worth a look with how often they were listed and opened, opens a card in the editor when its
// name is clicked, and breaks none of the page's Content-Security-Policy. Skipped, with a message,
// when /usr/bin/chromium is absent.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import type { Browser, Page } from "playwright-core";
import { openStore, stateUrl } from "../../src/state/index.ts";
import { ensureBinary } from "../support/binary.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/e2e/ui-card-health.test.ts: skipped, ${CHROMIUM} is missing`);

setDefaultTimeout(30_000);
let root = "";
let server: ReturnType<typeof Bun.spawn> | undefined;
let browser: Browser;
let page: Page;
const violations: string[] = [];

/** Alice listed 12 times and opened once (noisy); the Friday deploy listed and opened (healthy). */
async function seed(): Promise<void> {
  const store = await openStore(stateUrl(root), { warn: () => {} });
  const now = Date.now();
  for (let i = 0; i < 12; i++) {
    const query = `q${String(i).padStart(12, "0")}`;
    const cards = ["people/Alice", ...(i === 0 ? ["event/the Friday deploy"] : [])];
    await store.recordRecall({ session: "hook:s", query, at: now - i * 3_600_000, surface: "hook", cards });
  }
  const q0 = "q000000000000";
  await store.recordAdoption({ session: "hook:s", query: q0, card: "people/Alice", at: now });
  await store.recordAdoption({ session: "hook:s", query: q0, card: "event/the Friday deploy", at: now });
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

describe.skipIf(!hasChromium)("the Recall and adoption panel in Chromium", () => {
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

  test("opening it gives the counts per class and the cards worth a look; a name opens the card", async () => {
    await page.locator("#card-health summary").click();
    const body = page.locator("#card-health .panel-body");
    await body.locator(".summary").waitFor();
    expect(await body.locator(".summary").textContent()).toBe(
      "Last 30 days, 12 index recall(s): 3 dead, 1 noisy, 0 underperforming, 1 healthy.",
    );
    const items = await body.locator("li").allTextContents();
    expect(items).toEqual([
      "deadpeople/小林listed 0, opened 0 (–)",
      "deadplace/the corner cafelisted 0, opened 0 (–)",
      "deadthing/the blue notebooklisted 0, opened 0 (–)",
      "noisypeople/Alicelisted 12, opened 1 (8%)",
    ]);
    await body.locator("li.noisy button").click();
    await page.locator("#editor input[name=title]").waitFor();
    expect(await page.locator("#editor input[name=title]").inputValue()).toBe("Alice");
    expect(violations).toEqual([]);
  });
});
