// The write checks in the web editor (README "Write checks"): the compiled binary serves the page and
// the API, headless Chromium saves cards like a user. A saved card's warnings show under the form; a
// refused save shows the refusal and leaves the vault as it was. Skipped, with a message, when
// /usr/bin/chromium is absent.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { ensureBinary } from "../support/binary.ts";
import { vaultFiles } from "../support/card-vault.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(
    `test/e2e/ui-write-checks.test.ts: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`,
  );

let root = "";
let server: ReturnType<typeof Bun.spawn> | undefined;
let browser: Browser;
let page: Page;

async function startServer(bin: string): Promise<string> {
  const proc = Bun.spawn([bin, "ui", "--vault", root, "--port", "0"], {
    env: { PATH: process.env.PATH ?? "", HOME: root },
    stdout: "ignore",
    stderr: "pipe",
  });
  server = proc;
  const reader = proc.stderr.getReader();
  let text = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`lorecards ui did not start: ${text}`);
    text += new TextDecoder().decode(value);
    const m = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(text);
    if (m) {
      reader.releaseLock();
      return m[1]!;
    }
  }
}

/** Wait for the locator's text to contain `want` (playwright-core has no auto-waiting assertions). */
async function seeText(loc: Locator, want: string): Promise<string> {
  await loc.first().waitFor();
  let last = "";
  for (let i = 0; i < 200; i++) {
    last = (await loc.first().textContent()) ?? "";
    if (last.includes(want)) return last;
    await Bun.sleep(25);
  }
  throw new Error(`expected text ${want}; last seen: ${JSON.stringify(last)}`);
}

async function newCard(title: string, keywords: string, priority?: number): Promise<void> {
  await page.getByRole("button", { name: "New card" }).click();
  await page.getByLabel("Kind", { exact: true }).selectOption("people");
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Keywords").fill(keywords);
  if (priority !== undefined) {
    await page.getByText("More settings").click();
    await page.getByLabel("Priority").fill(String(priority));
  }
  await page.getByRole("button", { name: "Create card" }).click();
}

setDefaultTimeout(20_000);

describe.skipIf(!hasChromium)("the editor shows the write checks", () => {
  beforeAll(async () => {
    const bin = await ensureBinary();
    root = makeVault();
    for (let i = 1; i <= 5; i++) {
      fs.writeFileSync(
        path.join(root, "things", `Top ${i}.md`),
        `---\nkeywords: [top ${i}]\npriority: 2\n---\nx\n`,
      );
    }
    const base = await startServer(bin);
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    await page.goto(`${base}/`);
    await page.locator(".item .open", { hasText: "Alice" }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    server?.kill();
    await server?.exited;
    if (root) removeDir(root);
  });

  test("a saved card's warnings are listed under the form, and the card is saved", async () => {
    await newCard("Dana", "Dana or Danny");
    const banner = await seeText(page.locator(".banner.warn"), "Saved. Worth fixing in its trigger words:");
    expect(banner).toContain('"Dana or Danny" reads as two keywords typed as one');
    expect(fs.existsSync(path.join(root, "people", "Dana.md"))).toBe(true);
  });

  test("a save over the priority cap is refused in the form, naming the cap; nothing is written", async () => {
    const before = vaultFiles(root);
    await newCard("Eve", "Eve Moneypenny", 2);
    const alert = await seeText(page.locator(".banner.error"), "priority 2 or above is capped at 5 cards");
    expect(alert).toContain("thing/Top 1, thing/Top 2, thing/Top 3, thing/Top 4, thing/Top 5");
    expect(vaultFiles(root)).toEqual(before);
  });
});
