/**
 * The editor's speed as a person meets it, in headless Chromium against the compiled binary's `lorecards
 * ui`: how long the card list takes to be painted when the page opens, and how long each keystroke in
 * the search box takes until the list shows its result, each measured inside the page (so the browser's
 * own clock, not the test's round trips). A large vault is judged against an empty one measured in the
 * same run, at the same window size: the goals below are those ratios.
 *
 * - First paint: from the start of navigation to the frame after the list's status line ("761 cards")
 *   is written, the list's rows with it. The server is warm (the page was opened once before), as when
 *   a person opens the editor again; the median of `runs` page loads.
 * - A keystroke: from the input event to the next frame after it, while a word is typed letter by
 *   letter (and then erased) once the page has settled; an empty vault's keystroke is one frame, so the
 *   ratio says how many frames a keystroke costs. Both: medians.
 */
import type { Browser, BrowserContextOptions, Page } from "../test/support/playwright.ts";

/** The goals, as ratios to an empty vault's figure in the same run. */
export const EDITOR_GOALS = {
  /** The list painted within this many times an empty vault's first paint. */
  firstPaint: 4,
  /** A keystroke's result on screen within this many times an empty vault's (one frame). */
  keystroke: 2,
} as const;

export const SIZES: Record<string, BrowserContextOptions> = {
  desktop: { viewport: { width: 1440, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
};

export interface EditorFigures {
  /** Median first paint of the list, ms. */
  firstPaint: number;
  /** Median time from a keystroke to the next frame, ms. */
  keystroke: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** Marks, in the page, when the list's status line is first written: the list is painted with it. */
const PAINT_PROBE = `(() => {
  new MutationObserver((_, observer) => {
    const status = document.querySelector("#list-status");
    if (!status || status.textContent === "") return;
    observer.disconnect();
    requestAnimationFrame(() => { window.__listPainted = performance.now(); });
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();`;

/** Types `word` letter by letter into the search box and erases it again; each step's time to a frame. */
async function keystrokes(page: Page, word: string): Promise<number[]> {
  return page.evaluate(async (w) => {
    const input = document.querySelector<HTMLInputElement>("#filter")!;
    const frame = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const times: number[] = [];
    const steps = [
      ...Array.from({ length: w.length }, (_, i) => w.slice(0, i + 1)),
      ...Array.from({ length: w.length }, (_, i) => w.slice(0, w.length - i - 1)),
    ];
    await frame();
    for (const text of steps) {
      const t0 = performance.now();
      input.value = text;
      input.dispatchEvent(new Event("input", { bubbles: true }));
      await frame();
      times.push(performance.now() - t0);
    }
    return times;
  }, word);
}

/**
 * The figures of each vault served at `urls`, at one window size, measured in turns (a page load and
 * a typed word of each, then again, `rounds` times): a machine busy with other work is busy for all of
 * them alike, which is what makes their ratios mean something.
 */
export async function measureEditors(
  browser: Browser,
  urls: readonly string[],
  size: BrowserContextOptions,
  opts: { rounds?: number; word?: string } = {},
): Promise<EditorFigures[]> {
  const pages = [];
  for (const url of urls) {
    const context = await browser.newContext(size);
    await context.addInitScript(PAINT_PROBE);
    const page = await context.newPage();
    // The first opening warms the server (and fills its caches): the figures are of the ones after.
    await page.goto(`${url}/`);
    await page.waitForFunction(() => "__listPainted" in window);
    pages.push({ context, page, paints: [] as number[], typed: [] as number[] });
  }
  try {
    for (let round = 0; round < (opts.rounds ?? 5); round++) {
      for (const p of pages) {
        await p.page.reload();
        await p.page.waitForFunction(() => "__listPainted" in window);
        p.paints.push(
          await p.page.evaluate(() => (window as unknown as { __listPainted: number }).__listPainted),
        );
        // Typed once the page is settled: the facts the list sorts by have come (one more paint).
        await p.page.waitForLoadState("networkidle");
        p.typed.push(...(await keystrokes(p.page, opts.word ?? "the lore")));
      }
    }
    return pages.map((p) => ({ firstPaint: median(p.paints), keystroke: median(p.typed) }));
  } finally {
    for (const p of pages) await p.context.close();
  }
}
