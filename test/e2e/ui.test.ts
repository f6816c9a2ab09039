// The web editor end to end: the compiled binary serves the page and the API, headless Chromium drives
// it like a user (create, edit, conflict, archive/restore, try + one-click keyword, import/export, a
// phone in portrait, the token link). Skipped, with a message, when /usr/bin/chromium is absent.
import { beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import type { Browser, Locator, Page } from "playwright-core";
import {
  type EditorInChromium,
  editorOverVault,
  haveChromium,
  openFromList,
  openPanel,
  pollUntil,
  seeText,
} from "../support/editor-browser.ts";

const hasChromium = haveChromium("test/e2e/ui.test.ts");

const TOKEN = "e2e-token-5f3a-0123";
let root: string;
let base = "";
let editor: EditorInChromium;
let browser: Browser;
let page: Page;

const file = (...parts: string[]) => path.join(root, ...parts);
const read = (...parts: string[]) => fs.readFileSync(file(...parts), "utf8");

/** Rewrite a card behind the page's back, with an mtime that surely differs. */
function editOnDisk(rel: string, from: string, to: string): void {
  const p = file(rel);
  fs.writeFileSync(p, fs.readFileSync(p, "utf8").replace(from, to));
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(p, later, later);
}

const openCard = (title: string) => openFromList(page, title);

function expect_(cond: boolean, message: string): void {
  if (!cond) throw new Error(message);
}

/** Wait until a card file on disk contains `want` (a save is asynchronous from the page's side). */
function seeInFile(rel: string, want: string): Promise<string> {
  return pollUntil(
    async () => read(rel),
    (v) => v.includes(want),
    `expected ${rel} to contain ${want}`,
  );
}

function seeValue(loc: Locator, want: string | RegExp): Promise<string> {
  return pollUntil(
    () => loc.inputValue(),
    (v) => (typeof want === "string" ? v === want : want.test(v)),
    `expected value ${want}`,
  );
}

async function seed(vault: string): Promise<void> {
  fs.writeFileSync(
    path.join(vault, "people", "Bob.md"),
    "---\ntitle: Bob\nkeywords: [Bob]\n---\n## who\nBob from the choir.\n",
  );
}

describe.skipIf(!hasChromium)("the web editor in Chromium", () => {
  const it = editorOverVault(seed, { args: ["--token", TOKEN], context: { acceptDownloads: true } });
  beforeAll(() => {
    ({ root, editor, page } = it);
    ({ browser, url: base } = editor);
  });

  test("without the token the page says how to get in", async () => {
    const other = await browser.newContext();
    const p = await other.newPage();
    await p.goto(`${base}/`);
    await p.locator("#toasts").waitFor();
    expect(await p.locator("#toasts").textContent()).toContain("token");
    await other.close();
  });

  test("the token link is stored, wiped from the address bar and sent as a header", async () => {
    await page.goto(`${base}/?token=${TOKEN}`);
    await page.locator(".row", { hasText: "Alice" }).waitFor();
    expect(page.url()).toBe(`${base}/`);
    expect(await page.evaluate(() => localStorage.getItem("lorecards.token"))).toBe(TOKEN);
    await page.reload();
    await page.locator(".row", { hasText: "Bob" }).waitFor();
    const manifest = await page.evaluate(() =>
      document.querySelector('link[rel="manifest"]')?.getAttribute("href"),
    );
    expect(manifest).toBe("/manifest.webmanifest");
  });

  test("a vault of one book shows no book switch, no Try as and no Books panel", async () => {
    // The books are read (the switch holds `main`), and there is nothing to switch between.
    await page.locator("#book option").first().waitFor({ state: "attached" });
    const shown = await page.evaluate(() =>
      [".book-switch", "#try-as", "#shelf"].map((s) => (document.querySelector(s) as HTMLElement).hidden),
    );
    expect(shown).toEqual([true, true, true]);
  });

  test("a new card is created from the form built from the kind's sections", async () => {
    await page.getByRole("button", { name: "New card" }).click();
    await page.getByLabel("Kind", { exact: true }).selectOption("people");
    await page.getByLabel("Title").fill("Mira");
    await page.getByLabel("Keywords", { exact: true }).fill("Mira, cartographer");
    await page.getByLabel("who", { exact: true }).fill("A cartographer from the coast.");
    await page.getByLabel("correspondence — never injected").waitFor();
    await page.getByLabel("correspondence — never injected").fill("Owes me a map.");
    await page.getByRole("button", { name: "Create card" }).click();
    await seeText(page.locator(".editor-head h2"), "Mira");
    const text = read("people", "Mira.md");
    expect(text).toContain("keywords: [Mira, cartographer]");
    expect(text).toContain("## who\nA cartographer from the coast.");
    expect(text).toContain("## correspondence\nOwes me a map.");
  });

  test("an edit is saved with Ctrl+S", async () => {
    await openCard("Alice");
    await page.getByLabel("who", { exact: true }).fill("My sister; moved to Lyon in May.");
    await page.keyboard.press("Control+s");
    await seeInFile("people/Alice.md", "## who\nMy sister; moved to Lyon in May.");
    await seeText(page.locator("#toasts"), "Saved “Alice”");
  });

  test("a card changed on disk meanwhile gives a conflict: reload, or overwrite", async () => {
    await openCard("Bob");
    editOnDisk("people/Bob.md", "choir", "band");
    await page.getByLabel("who", { exact: true }).fill("Bob, mine.");
    await page.getByRole("button", { name: "Save" }).click();
    const banner = page.locator(".banner.conflict");
    await seeText(banner, "changed on disk");
    expect(read("people", "Bob.md")).toContain("Bob from the band.");
    await banner.getByRole("button", { name: "Load the version on disk" }).click();
    await seeValue(page.getByLabel("who", { exact: true }), "Bob from the band.");

    editOnDisk("people/Bob.md", "band", "orchestra");
    await page.getByLabel("who", { exact: true }).fill("Bob, mine after all.");
    await page.getByRole("button", { name: "Save" }).click();
    await page.locator(".banner.conflict").getByRole("button", { name: "Overwrite it with mine" }).click();
    await seeInFile("people/Bob.md", "## who\nBob, mine after all.");
    await seeText(page.locator("#toasts"), "Saved “Bob”");
  });

  test("archive moves the card to _archive/ and restore brings it back", async () => {
    await openCard("Mira");
    await page.getByRole("button", { name: "Archive" }).click();
    await seeText(page.locator("#toasts"), "Archived");
    expect(fs.existsSync(file("people", "Mira.md"))).toBe(false);
    expect(fs.existsSync(file("_archive", "people", "Mira.md"))).toBe(true);
    await page.getByLabel("Archived").check();
    await page.getByRole("option", { name: /Mira/ }).click();
    await seeText(page.locator(".editor-head h2"), "Mira");
    expect(fs.existsSync(file("people", "Mira.md"))).toBe(true);
  });

  test("try a sentence shows what surfaces and turns an unknown name into a keyword with one click", async () => {
    await openCard("Alice");
    await page.getByLabel("Try a sentence").fill("Alice met Margaret Thornton at the corner cafe");
    await page.keyboard.press("Enter");
    const result = page.locator("#try-result");
    await seeText(result, "Alice");
    await seeText(result, "sent ·");
    await seeText(result.locator(".fired", { hasText: "Alice" }), "on alice");
    await page.screenshot({ path: "/tmp/lorecards-ui-desktop.png" });
    await result.getByRole("button", { name: "+ Margaret Thornton" }).click();
    await seeValue(page.getByLabel("Keywords", { exact: true }), /Margaret Thornton/);
    await page.keyboard.press("Control+s");
    await seeInFile("people/Alice.md", "Margaret Thornton");

    await page.getByLabel("Try a sentence").fill("dinner with Oskar Lindqvist");
    await page.keyboard.press("Enter");
    await result.getByRole("button", { name: "New card for Oskar Lindqvist" }).click();
    await seeValue(page.getByLabel("Title"), "Oskar Lindqvist");
    await seeValue(page.getByLabel("Keywords", { exact: true }), "Oskar Lindqvist");
  });

  test("a keyword chip and a card row reached by Tab show a focus ring their clipping box does not hide", async () => {
    await page.getByLabel("Try a sentence").fill("Alice met Henrietta Vasquez");
    await page.keyboard.press("Enter");
    await page.locator("#try-result .chip-main").first().waitFor();
    const ring = async (selector: string) => {
      await page.getByLabel("Try a sentence").focus();
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press("Tab");
        const style = await page.evaluate((sel) => {
          const a = document.activeElement as HTMLElement;
          if (!a.matches(sel)) return null;
          const cs = getComputedStyle(a);
          return { style: cs.outlineStyle, offset: Number.parseFloat(cs.outlineOffset) };
        }, selector);
        if (style) return style;
      }
      throw new Error(`Tab never reached ${selector}`);
    };
    for (const selector of [".chip-main", ".row"]) {
      const { style, offset } = await ring(selector);
      expect(style).toBe("solid");
      expect(offset).toBeLessThan(0);
    }
  });

  test("the recently surfaced and health check panels open", async () => {
    await seeText(await openPanel(page, "health"), /cards look fine|\//);
    await seeText(await openPanel(page, "recent"), "Nothing has surfaced yet.");
  });

  test("a SillyTavern lorebook is imported from a file and the vault exported as one", async () => {
    const book = {
      entries: { "0": { uid: 0, key: ["Quill"], comment: "Quill", content: "The inn's cat.", order: 100 } },
    };
    await page.locator("#books summary").click();
    await page.getByLabel("Lorebook or character card (.json, .png, .charx)").setInputFiles({
      name: "book.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify(book)),
    });
    // Into the book the list shows (by default it would go to a book of its own, as the CLI's import).
    await page.getByLabel("Import into").selectOption("shown");
    await page.getByLabel("Import as kind").selectOption("thing");
    await page.getByRole("button", { name: "Import", exact: true }).click();
    await seeText(page.locator("#toasts"), "into the vault's own cards (main): 1 new");
    expect(read("things", "Quill.md")).toContain("The inn's cat.");
    await page.locator(".row", { hasText: "Quill" }).waitFor();

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export", exact: true }).click(),
    ]);
    const out = JSON.parse(fs.readFileSync((await download.path())!, "utf8"));
    const titles = Object.values(out.entries as Record<string, { comment: string }>).map((e) => e.comment);
    expect(titles).toContain("Quill");
    expect(titles).toContain("Alice");
    expect(JSON.stringify(out)).not.toContain("Owes me a map");
  });

  test.each([
    ["card-png", "png", [0x89, 0x50, 0x4e, 0x47], "place", "places"],
    ["charx", "charx", [0x50, 0x4b, 0x03, 0x04], "slang", "slang"],
    ["card-json", "json", [0x7b], "event", "events"],
    ["lorebook_v3", "json", [0x7b], "entry", "."],
  ])(
    "the vault is exported as %s from the page, and that file imports back as it is",
    async (format, ext, magic, kind, dir) => {
      await page.getByLabel("Export as").selectOption(format);
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "Export", exact: true }).click(),
      ]);
      const name = download.suggestedFilename();
      expect(name.endsWith(`.${ext}`)).toBe(true);
      const bytes = fs.readFileSync((await download.path())!);
      expect([...bytes.subarray(0, magic.length)]).toEqual(magic);
      expect(bytes.includes("Owes me a map")).toBe(false);

      const before = new Set(fs.readdirSync(file(dir)));
      // The page sends the picked file's bytes untouched; the server tells the formats apart.
      await page.getByLabel("Lorebook or character card (.json, .png, .charx)").setInputFiles({
        name,
        mimeType: "application/octet-stream",
        buffer: bytes,
      });
      await page.getByLabel("Import into").selectOption("shown");
      await page.getByLabel("Import as kind").selectOption(kind);
      await page.getByRole("button", { name: "Import", exact: true }).click();
      await seeText(page.locator("#toasts"), `Imported ${name}`);
      expect(read(dir, "Quill.md")).toContain("The inn's cat.");
      for (const added of fs.readdirSync(file(dir))) if (!before.has(added)) fs.rmSync(file(dir, added));
    },
  );

  test("a card file that cannot be parsed is listed with the reason, and the try box says it was skipped", async () => {
    fs.writeFileSync(file("people", "Broken.md"), "---\ntitle: [unclosed\n---\nAlice was here\n");
    await page.reload();
    const group = page.getByRole("region", { name: "Cards that cannot be read" });
    await group.locator("summary", { hasText: "people/Broken.md" }).click();
    await seeText(group, "not valid YAML");
    await page.getByLabel("Try a sentence").fill("Alice again");
    await page.keyboard.press("Enter");
    await seeText(page.locator("#try-result"), "cannot be read: people/Broken.md");
    fs.rmSync(file("people", "Broken.md"));
  });

  test("the page keeps to its Content-Security-Policy: nothing from elsewhere, nothing blocked", async () => {
    const csp = await page.evaluate(
      () =>
        document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute("content") ?? "",
    );
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(editor.violations).toEqual([]);
  });

  test("the cards are one Tab stop: arrows, Home/End and the page keys move across kinds, Enter opens, Space selects", async () => {
    // Enough rows that the end of the list is off screen, where rows are not in the page until reached.
    const made: string[] = [];
    for (const dir of ["people", "places"])
      for (let i = 0; i < 80; i++) {
        const rel = path.join(dir, `Row ${dir} ${String(i).padStart(2, "0")}.md`);
        fs.writeFileSync(file(rel), `---\nkeywords: [row${dir}${i}]\n---\n## note\nrow ${i}\n`);
        made.push(rel);
      }
    try {
      await page.goto(`${base}/?token=${TOKEN}`);
      const list = page.locator("#card-list");
      await list.getByRole("option", { name: /Row people 00/ }).waitFor();
      const focused = () =>
        page.evaluate(() => {
          const a = document.activeElement as HTMLElement;
          return a.getAttribute("role") === "option"
            ? (a.querySelector(".row-title")?.textContent ?? "")
            : "";
        });
      const tabStops = () =>
        page.evaluate(() => document.querySelectorAll('#card-list [role="option"][tabindex="0"]').length);
      // Only the rows on screen are in the page, however many cards there are.
      const rendered = await page.evaluate(
        () => document.querySelectorAll('#card-list [role="option"]').length,
      );
      expect(rendered).toBeLessThan(60);
      expect(await list.getByRole("option", { name: /Row places 79/ }).count()).toBe(0);

      await page.getByLabel("Search the cards").focus();
      let first = "";
      for (let i = 0; i < 12 && first === ""; i++) {
        await page.keyboard.press("Tab");
        first = await focused();
      }
      expect(first).toBe("Alice");
      expect(await tabStops()).toBe(1);
      await page.keyboard.press("Tab");
      expect(await focused()).toBe("");
      await page.keyboard.press("Shift+Tab");
      expect(await focused()).toBe("Alice");

      // End reaches a row that was not in the page, makes it and scrolls it into view.
      await page.keyboard.press("End");
      const last = await page.evaluate(() => {
        const a = document.activeElement!;
        const boxes = [...document.querySelectorAll('#card-list [role="listbox"]')];
        return {
          lastBox: a.closest('[role="listbox"]') === boxes.at(-1),
          pos: a.getAttribute("aria-posinset"),
          size: a.getAttribute("aria-setsize"),
        };
      });
      expect(last.lastBox).toBe(true);
      expect(last.pos).toBe(last.size);
      const inView = await page.evaluate(() => {
        const o = document.activeElement!.getBoundingClientRect();
        const box = document.querySelector("#card-list")!.getBoundingClientRect();
        return o.top >= box.top && o.bottom <= box.bottom;
      });
      expect(inView).toBe(true);
      await page.keyboard.press("Home");
      expect(await focused()).toBe("Alice");
      await page.keyboard.press("PageDown");
      const paged = await focused();
      expect(paged).toMatch(/^Row people/);
      await page.keyboard.press("PageUp");
      expect(await focused()).toBe("Alice");

      // ArrowDown crosses from the last card of one kind to the first of the next.
      const where = () =>
        page.evaluate(() => {
          const a = document.activeElement!;
          const box = a.closest('[role="listbox"]')!.getAttribute("aria-labelledby");
          return { box, pos: a.getAttribute("aria-posinset"), size: a.getAttribute("aria-setsize") };
        });
      let at = await where();
      for (let i = 0; i < 200 && at.box === "kind-people"; i++) {
        await page.keyboard.press("ArrowDown");
        at = await where();
      }
      expect(at).toMatchObject({ box: "kind-event", pos: "1" });
      await page.keyboard.press("ArrowUp");
      at = await where();
      expect(at.box).toBe("kind-people");
      expect(at.pos).toBe(at.size);
      await page.keyboard.press("Home");

      // Enter opens the focused card: it is the current one, and the one Tab stop.
      for (let i = 0; i < 10 && (await focused()) !== "Row people 04"; i++)
        await page.keyboard.press("ArrowDown");
      await page.keyboard.press("Enter");
      await seeText(page.locator(".editor-head h2"), "Row people 04");
      expect(await list.locator('[aria-current="true"]').textContent()).toContain("Row people 04");
      expect(await tabStops()).toBe(1);

      // Space selects (and the bar for the selected cards comes), Shift+Space selects a range.
      await list.locator('[aria-current="true"]').focus();
      await page.keyboard.press(" ");
      await seeText(page.locator("#bulk"), "1 card selected");
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("Shift+ ");
      await seeText(page.locator("#bulk"), "3 cards selected");
      expect(await list.getByRole("option", { selected: true }).count()).toBe(3);
      await page.getByRole("button", { name: "Clear", exact: true }).click();
      expect(await page.locator("#bulk").isHidden()).toBe(true);
    } finally {
      for (const rel of made) fs.rmSync(file(rel));
    }
  });

  test("the home-screen icon is a 180×180 PNG, listed in the manifest and linked as the apple-touch-icon", async () => {
    const manifest = (await (await fetch(`${base}/manifest.webmanifest`)).json()) as {
      icons: { src: string; sizes: string; type: string }[];
    };
    expect(manifest.icons.some((i) => i.type === "image/svg+xml")).toBe(true);
    const icon = manifest.icons.find((i) => i.type === "image/png");
    expect(icon?.sizes).toBe("180x180");
    const res = await fetch(new URL(icon!.src, base));
    expect(res.headers.get("content-type")).toBe("image/png");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // Every chunk's CRC is right, and IHDR says 180 × 180.
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    const types: string[] = [];
    for (let at = 8; at < bytes.length; ) {
      const length = view.getUint32(at);
      types.push(new TextDecoder().decode(bytes.subarray(at + 4, at + 8)));
      expect(view.getUint32(at + 8 + length)).toBe(zlib.crc32(bytes.subarray(at + 4, at + 8 + length)));
      at += 12 + length;
    }
    expect(types[0]).toBe("IHDR");
    expect(types.at(-1)).toBe("IEND");
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([180, 180]);

    const link = await page.evaluate(() => {
      const l = document.querySelector('link[rel="apple-touch-icon"]');
      return { href: l?.getAttribute("href"), sizes: l?.getAttribute("sizes") };
    });
    expect(link).toEqual({ href: icon!.src, sizes: "180x180" });
    // Chromium decodes it; iOS fills transparency with black, so the corners are the theme colour.
    const seen = await page.evaluate(async (src) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      const canvas = document.createElement("canvas");
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const g = canvas.getContext("2d")!;
      g.drawImage(img, 0, 0);
      const at = (x: number, y: number) => [...g.getImageData(x, y, 1, 1).data];
      return { w: img.naturalWidth, h: img.naturalHeight, corner: at(0, 0), card: at(90, 140) };
    }, icon!.src);
    expect(seen).toEqual({ w: 180, h: 180, corner: [0x2f, 0x5d, 0x50, 255], card: [0xf7, 0xf3, 0xe8, 255] });
  });

  test("on a phone in portrait the list and the editor take turns", async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const p = await phone.newPage();
    await p.goto(`${base}/?token=${TOKEN}`);
    await p.locator(".row", { hasText: "Alice" }).waitFor();
    await p.locator("#editor").waitFor({ state: "hidden" });
    const width = await p.evaluate(() => document.documentElement.scrollWidth);
    expect_(width <= 390, `the page scrolls sideways on a phone (${width}px wide)`);
    await p.screenshot({ path: "/tmp/lorecards-ui-phone-list.png" });
    await p.locator(".row", { hasText: "Alice" }).tap();
    await seeText(p.locator(".editor-head h2"), "Alice");
    await p.locator(".side").waitFor({ state: "hidden" });
    await p.screenshot({ path: "/tmp/lorecards-ui-phone-edit.png", fullPage: true });
    await p.getByRole("button", { name: "← Cards" }).tap();
    await p.locator(".side").waitFor();
    await phone.close();
  });
});
