// The editor stays quick on a large book (bench/_editor.ts measures, bench/editor.ts reports): on the real
// 761-entry book and on a generated vault of 10,000 cards, the list's first paint and each keystroke in
// the search box stay within the goals stated in bench/, as ratios to an empty vault measured in the same
// run and at the same window size, on a desktop and on a phone. Skipped without Chromium or the book.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { EDITOR_GOALS, type EditorFigures, measureEditors, SIZES } from "../../bench/_editor.ts";
import { writeVault } from "../../bench/gen-vault.ts";
import { ensureBinary } from "../support/binary.ts";
import { CHROMIUM, haveChromium, startUi, type UiServer } from "../support/editor-browser.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";
import { removeDir } from "../support/vault.ts";

const hasChromium = haveChromium("test/e2e/editor-speed.test.ts");
const hasBook = haveRealFixture("test/e2e/editor-speed.test.ts", "sora_Eldoria_V10.6.0.json");
const BOOK = path.join(REAL_FIXTURES, "sora_Eldoria_V10.6.0.json");

setDefaultTimeout(300_000);

const work = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "lc-editor-speed-"));
const servers: UiServer[] = [];
let browser: Browser;
const figures = new Map<string, EditorFigures[]>();

describe.skipIf(!hasChromium || !hasBook)("the editor on a large book, in Chromium", () => {
  beforeAll(async () => {
    const bin = await ensureBinary();
    const empty = path.join(work, "empty");
    const book = path.join(work, "book");
    const generated = path.join(work, "generated");
    fs.mkdirSync(empty);
    fs.mkdirSync(book);
    expect(
      Bun.spawnSync([bin, "import", BOOK, "--book", "main", "--vault", book], { env: { HOME: work } })
        .exitCode,
    ).toBe(0);
    writeVault(generated, 10_000);
    for (const vault of [empty, book, generated]) servers.push(await startUi(vault));
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    for (const [size, options] of Object.entries(SIZES)) {
      figures.set(
        size,
        await measureEditors(
          browser,
          servers.map((s) => s.url),
          options,
          { rounds: 3 },
        ),
      );
    }
  });

  afterAll(async () => {
    await browser?.close();
    for (const s of servers) await s.stop();
    removeDir(work);
  });

  for (const size of Object.keys(SIZES))
    for (const [at, vault] of [
      [1, "the 761-entry book"],
      [2, "10,000 cards"],
    ] as const)
      test(`on a ${size}, with ${vault}: the first paint and each keystroke are within bench/'s goals`, () => {
        const [empty, big] = [figures.get(size)![0]!, figures.get(size)![at]!];
        const said = `${size}: ${JSON.stringify(big)} against an empty vault's ${JSON.stringify(empty)}`;
        expect(big.firstPaint / empty.firstPaint, said).toBeLessThanOrEqual(EDITOR_GOALS.firstPaint);
        expect(big.keystroke / empty.keystroke, said).toBeLessThanOrEqual(EDITOR_GOALS.keystroke);
      });
});
