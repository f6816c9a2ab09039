/**
 * The web editor in headless Chromium, for the end-to-end tests of the page: whether Chromium is there
 * (a test file skips, with one line on stderr, when /usr/bin/chromium is absent), the compiled binary's
 * `lorecards ui` started on a free port, a page that records what the Content-Security-Policy blocked,
 * a panel opened, and polling for text (playwright-core has no auto-waiting assertions).
 */
import { afterAll, beforeAll } from "bun:test";
import fs from "node:fs";
import type { Browser, BrowserContextOptions, Locator, Page } from "playwright-core";
import { ensureBinary } from "./binary.ts";
import { makeVault, removeDir } from "./vault.ts";

export const CHROMIUM = "/usr/bin/chromium";

/** Whether Chromium is installed; when it is not, says on stderr that `who` (a test file) skips. */
export function haveChromium(who: string): boolean {
  const present = fs.existsSync(CHROMIUM);
  if (!present) console.warn(`${who}: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`);
  return present;
}

export interface UiServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  url: string;
  stop(): Promise<void>;
}

/**
 * `lorecards ui --vault <vault> --port 0 [args]` from the compiled binary, with HOME set to the vault;
 * resolves once it prints the address to open on stderr.
 */
export async function startUi(vault: string, args: string[] = []): Promise<UiServer> {
  const bin = await ensureBinary();
  const proc = Bun.spawn([bin, "ui", "--vault", vault, "--port", "0", ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: vault },
    stdout: "ignore",
    stderr: "pipe",
  });
  const stop = async () => {
    proc.kill();
    await proc.exited;
  };
  const reader = proc.stderr.getReader();
  let text = "";
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    const m = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(text);
    if (m) {
      reader.releaseLock();
      return { url: m[1]!, stop };
    }
  }
  await stop();
  throw new Error(`lorecards ui did not start: ${text}`);
}

export interface Chromium {
  browser: Browser;
  page: Page;
  /** What Chromium said on the page's console when its Content-Security-Policy blocked something. */
  violations: string[];
  close(): Promise<void>;
}

/** Headless Chromium with one page open in a desktop-sized context (`options` go to that context). */
export async function openChromium(options: BrowserContextOptions = {}): Promise<Chromium> {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, ...options });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  return { browser, page, violations, close: () => browser.close() };
}

export interface EditorInChromium extends Chromium {
  /** The editor's address, without a trailing slash. */
  url: string;
  /** Closes Chromium and stops the editor. */
  close(): Promise<void>;
}

/** How a test opens the editor. */
export interface EditorOptions {
  /** `lorecards ui` flags besides the vault and the port (`--token T`). */
  args?: string[];
  /** Options of the page's browser context (its viewport, whether it takes downloads). */
  context?: BrowserContextOptions;
}

/** `startUi` and `openChromium` together, the page opened on the editor. */
export async function editorInChromium(
  vault: string,
  options: EditorOptions = {},
): Promise<EditorInChromium> {
  const server = await startUi(vault, options.args);
  let chromium: Chromium | undefined;
  try {
    chromium = await openChromium(options.context);
    await chromium.page.goto(`${server.url}/`);
  } catch (err) {
    await chromium?.close();
    await server.stop();
    throw err;
  }
  const opened = chromium;
  return {
    ...opened,
    url: server.url,
    close: async () => {
      await opened.close();
      await server.stop();
    },
  };
}

/**
 * The set-up of a test file of the editor: for the enclosing `describe`, a fresh example vault that
 * `seed` fills, the editor over it in Chromium, both gone after. Its fields are there once the tests run.
 */
export function editorOverVault(
  seed: (root: string) => Promise<void> = async () => {},
  options: EditorOptions = {},
): {
  root: string;
  editor: EditorInChromium;
  page: Page;
} {
  const it = {} as { root: string; editor: EditorInChromium; page: Page };
  beforeAll(async () => {
    it.root = makeVault();
    await seed(it.root);
    it.editor = await editorInChromium(it.root, options);
    it.page = it.editor.page;
  });
  afterAll(async () => {
    await it.editor?.close();
    if (it.root) removeDir(it.root);
  });
  return it;
}

/** Opens the editor's `<details id=…>` panel and returns its body. */
export async function openPanel(page: Page, id: string): Promise<Locator> {
  await page.locator(`#${id} summary`).click();
  return page.locator(`#${id} .panel-body`);
}

/** Poll until the probe's value passes, and return it; a probe that throws counts as "". */
export async function pollUntil(
  probe: () => Promise<string>,
  ok: (v: string) => boolean,
  what: string,
): Promise<string> {
  const deadline = Date.now() + 60_000;
  let last = "";
  while (Date.now() < deadline) {
    last = await probe().catch(() => "");
    if (ok(last)) return last;
    await Bun.sleep(50);
  }
  throw new Error(`${what}; last seen: ${JSON.stringify(last)}`);
}

/** Wait until the (first) element's text contains `want`, or matches it; returns that text. */
export function seeText(loc: Locator, want: string | RegExp): Promise<string> {
  return pollUntil(
    async () => (await loc.first().textContent()) ?? "",
    (v) => (typeof want === "string" ? v.includes(want) : want.test(v)),
    `expected text ${want}`,
  );
}

/**
 * Opens a card from the list and returns once the form built for this click shows it: the form shown
 * before is marked first, because the card may already be open (a title seen at once would let the
 * test go on while the click's own answer is still on its way, and that answer rebuilds the form).
 */
export async function openFromList(on: Page, title: string): Promise<void> {
  await on.evaluate(() => document.querySelector("form.card-form")?.setAttribute("data-before-open", ""));
  await on.locator(".row", { hasText: title }).first().click();
  await seeText(on.locator("form.card-form:not([data-before-open]) .editor-head h2"), title);
}

/**
 * Holds the page's requests to `url` (those `which` picks; the others go on) until `release()`, so a
 * test can act while an answer is still on its way. `untilAsked` waits for the first held request.
 */
export async function holdRequests(on: Page, url: string, which: (method: string) => boolean = () => true) {
  let release = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  let asked = false;
  await on.route(url, async (route) => {
    if (!which(route.request().method())) return route.continue();
    asked = true;
    await held;
    await route.continue();
  });
  return {
    release: () => release(),
    untilAsked: (what: string) =>
      pollUntil(
        async () => String(asked),
        (v) => v === "true",
        what,
      ),
    async stop(): Promise<void> {
      release();
      await on.unroute(url);
    },
  };
}
