// Every view of the editor, with the real 761-entry book, checked by axe-core (Deque's engine, from npm)
// in headless Chromium at a desktop's and a phone's size, in light and in dark: no serious or critical
// violation anywhere. The same run photographs each view at both sizes for docs/EDITOR.md: into a temp
// folder, or into docs/editor/ with LORECARDS_DOCS_SHOTS=1 (how the page's pictures are made again).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { openStore, stateUrl } from "../../src/state/index.ts";
import { axeViolations, describeViolations } from "../support/axe.ts";
import { ensureBinary } from "../support/binary.ts";
import { CHROMIUM, haveChromium, seeText, startUi, type UiServer } from "../support/editor-browser.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";
import { turnRecord } from "../support/turn-record.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const WHO = "test/e2e/editor-a11y.test.ts";
const hasChromium = haveChromium(WHO);
const hasBook =
  haveRealFixture(WHO, "sora_Eldoria_V10.6.0.json") && haveRealFixture(WHO, "st-card-Seraphina.chara.json");
const SHOTS =
  process.env.LORECARDS_DOCS_SHOTS === "1"
    ? path.join(import.meta.dir, "..", "..", "docs", "editor")
    : undefined;

setDefaultTimeout(300_000);

const SIZES: Record<string, BrowserContextOptions> = {
  desktop: { viewport: { width: 1440, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
};

let root: string;
let server: UiServer;
let browser: Browser;
let shots: string;

/** The views of the page, each reached from the list as a person would reach it. */
const VIEWS: [string, (page: Page, phone: boolean) => Promise<void>][] = [
  ["list", async () => {}],
  [
    "search-and-select",
    async (page) => {
      await page.getByLabel("Search the cards").fill("光晶");
      await page.locator("#card-list mark").first().waitFor();
      await page.locator("#card-list .tick").nth(0).click();
      await page.locator("#card-list .tick").nth(1).click();
      await page.locator("#filters summary").click();
    },
  ],
  [
    "card",
    async (page) => {
      await page.goto(`${server.url}/#/entry/${encodeURIComponent("光晶石")}`);
      await seeText(page.locator(".editor-head h2"), "光晶石");
      for (const part of ["Lorebook settings", "More settings", "Linked cards"])
        await page.locator("form.card-form summary", { hasText: part }).click();
      await page.locator(".links-body > *").first().waitFor();
      // The picture shows the lorebook settings, the part a person looks for.
      await page.locator("details.lorebook").evaluate((e) => e.scrollIntoView({ block: "start" }));
    },
  ],
  [
    "try",
    async (page) => {
      await page.getByLabel("Try a sentence").fill("Seraphina 在光晶矿坑");
      await page.keyboard.press("Enter");
      await page.locator("#try-why .why-line").first().waitFor();
    },
  ],
  [
    "import",
    async (page) => {
      const body = await panel(page, "books", ".drop");
      const book = path.join(REAL_FIXTURES, "st-worldinfo-Eldoria.json");
      await body.getByLabel("Lorebook or character card (.json, .png, .charx)").setInputFiles(book);
      await body.getByLabel("Import as kind").selectOption("place");
      await body.getByRole("button", { name: "Import", exact: true }).click();
      await body.locator(".import-result .summary").waitFor();
      await page.locator("#books").scrollIntoViewIfNeeded();
    },
  ],
  [
    "new-card",
    async (page, phone) => {
      if (phone) await page.getByRole("button", { name: "New card" }).scrollIntoViewIfNeeded();
      await page.getByRole("button", { name: "New card" }).click();
      await page.locator("form.card-form").waitFor();
    },
  ],
  [
    "books",
    async (page) => {
      // A character's book beside the vault's own: the Book switch over the list, the Books panel.
      await page.locator(".book-switch").waitFor();
      await panel(page, "shelf", ".shelf-book");
    },
  ],
  ["changes", async (page) => void (await panel(page, "changes", ".steps li"))],
  ["budget", async (page) => void (await panel(page, "budget", ".always-list li"))],
  [
    "conversation",
    async (page) => {
      const body = await panel(page, "conversations", ".conversation button");
      await body.locator(".conversation button").first().click();
      await body.locator(".turn").first().waitFor();
    },
  ],
  [
    "panels",
    async (page) => {
      for (const id of ["history", "recent", "health", "stats", "card-health", "style"])
        await panel(page, id, "*");
    },
  ],
  [
    "archive",
    async (page) => {
      await page.getByLabel("Archived").check();
      await page.locator("#list-status").filter({ hasText: "archive" }).waitFor();
    },
  ],
];

/** Opens a panel (scrolled to, as on a phone it is below the list) and waits for what it shows. */
async function panel(page: Page, id: string, shows: string) {
  await page.locator(`#${id} summary`).scrollIntoViewIfNeeded();
  await page.locator(`#${id} summary`).click();
  const body = page.locator(`#${id} .panel-body`);
  await body.locator(shows).first().waitFor();
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  return body;
}

describe.skipIf(!hasChromium || !hasBook)("every view of the editor, checked by axe-core", () => {
  beforeAll(async () => {
    root = makeVault();
    shots = SHOTS ?? fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "lc-editor-shots-"));
    fs.mkdirSync(shots, { recursive: true });
    const bin = await ensureBinary();
    const book = path.join(REAL_FIXTURES, "sora_Eldoria_V10.6.0.json");
    expect(
      Bun.spawnSync([bin, "import", book, "--book", "main", "--vault", root], { env: { HOME: root } })
        .exitCode,
    ).toBe(0);
    // A character card makes a book of its own, bound to its character: the vault has two books.
    const character = path.join(REAL_FIXTURES, "st-card-Seraphina.chara.json");
    expect(Bun.spawnSync([bin, "import", character, "--vault", root], { env: { HOME: root } }).exitCode).toBe(
      0,
    );
    Bun.spawnSync([bin, "archive", "Alice", "--vault", root], { env: { HOME: root } });
    const store = await openStore(stateUrl(root));
    const text = "### 光晶石 [entry]\n圣光在深层地层中沉淀形成的结晶矿。";
    await store.recordTurn(
      turnRecord(
        "chat-1",
        1,
        [{ tier: "volatile", where: "newest user message", text, cards: ["entry/光晶石"] }],
        {
          model: "gpt-5",
        },
      ),
    );
    await store.close();
    server = await startUi(root);
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (root) removeDir(root);
    if (!SHOTS && shots) removeDir(shots);
  });

  for (const [size, options] of Object.entries(SIZES))
    for (const scheme of ["light", "dark"] as const)
      test(`at a ${size}'s size, in ${scheme}: no view has a serious or critical violation`, async () => {
        const found: string[] = [];
        for (const [view, reach] of VIEWS) {
          const context = await browser.newContext({ ...options, bypassCSP: true, colorScheme: scheme });
          const page = await context.newPage();
          await page.goto(`${server.url}/`);
          await page.locator('[role="option"]').first().waitFor();
          await page.waitForLoadState("networkidle");
          await reach(page, size === "phone");
          const violations = await axeViolations(page);
          if (violations.length > 0) found.push(`${view}:\n${describeViolations(violations)}`);
          if (scheme === "light") {
            const file = path.join(shots, `${view}-${size}.jpg`);
            await page.screenshot({ path: file, type: "jpeg", quality: 72 });
            expect(fs.statSync(file).size).toBeGreaterThan(10_000);
          }
          await context.close();
        }
        expect(found, found.join("\n\n")).toEqual([]);
      });
});
