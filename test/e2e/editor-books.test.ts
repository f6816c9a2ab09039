// The editor over a vault of several books, in headless Chromium against the compiled binary: a
// SillyTavern user's two characters (SillyTavern's own Seraphina card, a RisuAI card for Mira) and a
// shared world book, each imported as its own book, and a conversation with each through the gateway.
// The page switches between the books (and the address keeps the one shown), saves a card into the
// book it came from, shows which conversations read each book, and its try box reads the books a
// character or a conversation would: her book and the world, never the other character's.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { editorOverVault, haveChromium, openPanel, pollUntil, seeText } from "../support/editor-browser.ts";
import { startFakeUpstream } from "../support/fake-upstream.ts";
import { startGatewayBinary } from "../support/gateway-binary.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";

const WHO = "test/e2e/editor-books.test.ts";
const ready = haveChromium(WHO) && haveRealFixture(WHO, "st-card-Seraphina.png");
const MIRA = path.resolve(import.meta.dir, "../interop/fixtures/risu-card.json");

setDefaultTimeout(120_000);

/** SillyTavern's default main prompt, then the character's description (as its prompt manager sends). */
const systemOf = (name: string) =>
  `Write ${name}'s next reply in a fictional chat between ${name} and User.\n\n${name} is a guardian of her home.`;

/** The books imported, a conversation with each character through the compiled gateway, named. */
async function seed(root: string): Promise<void> {
  const bin = await ensureBinary();
  for (const file of [
    path.join(REAL_FIXTURES, "st-card-Seraphina.png"),
    MIRA,
    path.join(REAL_FIXTURES, "hxh_Weather_Director.json"),
  ]) {
    const r = await runBinary(["import", file, "--vault", root], { env: { HOME: root } });
    expect({ file, code: r.code, err: r.stderr }).toEqual({ file, code: 0, err: "" });
  }
  const upstream = startFakeUpstream();
  const gateway = await startGatewayBinary(bin, root, upstream.url, root);
  try {
    for (const name of ["Seraphina", "Mira"]) {
      const res = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
        body: JSON.stringify({
          model: "gpt-test",
          messages: [
            { role: "system", content: systemOf(name) },
            { role: "user", content: "Is the glade safe from the lighthouse keeper?" },
          ],
        }),
      });
      expect(res.status).toBe(200);
      await res.text();
    }
  } finally {
    await gateway.stop();
    await upstream.close();
  }
}

let root: string;
let page: Page;

/** The titles of the cards the list shows. */
const titles = () =>
  page.evaluate(() =>
    [...document.querySelectorAll('#card-list [role="option"] .row-title')].map((t) => t.textContent ?? ""),
  );
const listShows = (want: string[]) =>
  pollUntil(
    async () => (await titles()).sort().join("|"),
    (v) => v === [...want].sort().join("|"),
    `the list shows ${want.join(", ")}`,
  );

/** The titles of the cards the last try fired, and those of its "Why" lines. */
const fired = () => page.locator("#try-result .fired-list button.link").allTextContents();
const whyTitles = () => page.locator("#try-why .why-line b").allTextContents();

/** Tries `sentence` as `option` of "Try as"; resolves once the page says it read `books`. */
async function tryAs(option: string, sentence: string, books: string): Promise<void> {
  await page.locator("#try-as").selectOption({ label: option });
  await page.locator("#try-text").fill(sentence);
  await page.locator("#try button[type=submit]").click();
  await seeText(page.locator("#try-result .books-read"), `Books read: ${books}.`);
}

describe.skipIf(!ready)("the editor over two characters' books and a world, in Chromium", () => {
  const it = editorOverVault(seed);
  beforeAll(async () => {
    ({ root, page } = it);
    page.on("dialog", (d) => void d.accept());
    // Started: the book switch is filled from the books' answer, which may come after the list's.
    await page.locator("body[data-started]").waitFor({ state: "attached" });
  });

  test("on a phone the try box takes the top bar's row, “Try as” goes under it and the bar stays short; a desktop keeps them side by side", async () => {
    /** The top bar's height, and the sentence's and "Try as"'s boxes, at this size. */
    const boxes = async (viewport: { width: number; height: number }) => {
      await page.setViewportSize(viewport);
      return page.evaluate(() => {
        const box = (s: string) => document.querySelector(s)!.getBoundingClientRect();
        return {
          top: box("header.top").height,
          sentence: box("#try-text"),
          as: box("#try-as"),
          wide: document.documentElement.scrollWidth,
        };
      });
    };
    try {
      const phone = await boxes({ width: 390, height: 844 });
      expect(phone.sentence.width).toBeGreaterThan(200);
      expect(phone.as.top).toBeGreaterThanOrEqual(phone.sentence.bottom);
      expect(phone.top).toBeLessThan(110);
      expect(phone.wide).toBe(390);
      const desk = await boxes({ width: 1440, height: 900 });
      expect(desk.as.top).toBe(desk.sentence.top);
      expect(desk.as.left).toBeGreaterThan(desk.sentence.right);
      expect(desk.top).toBeLessThan(70);
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  test("the switch lists every book; choosing one shows its cards only, and the address keeps it", async () => {
    const options = await page
      .locator("#book option")
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(options).toEqual(["main", "hxh_weather_director", "mira", "seraphina"]);
    await page.locator("#book").selectOption("seraphina");
    await listShows(["eldoria", "glade", "power", "shadowfang"]);
    expect(new URL(page.url()).searchParams.get("book")).toBe("seraphina");
    await page.reload();
    await page.locator("body[data-started]").waitFor({ state: "attached" });
    await listShows(["eldoria", "glade", "power", "shadowfang"]);
    expect(await page.locator("#book").inputValue()).toBe("seraphina");
    await page.locator("#book").selectOption("mira");
    await listShows(["Lamp", "Rules"]);
  });

  test("a card edited in a book is saved into that book's folder, and the vault's own cards stay as they were", async () => {
    await page.locator("#book").selectOption("seraphina");
    await page.locator('#card-list [role="option"]', { hasText: "glade" }).click();
    const keywords = page.locator('#editor input[name="keywords"]');
    await keywords.fill(`${await keywords.inputValue()}, moonlit clearing`);
    await page.locator("#editor button[type=submit]").click();
    await pollUntil(
      async () => fs.readFileSync(path.join(root, "books/seraphina/glade.md"), "utf8"),
      (text) => text.includes("moonlit clearing"),
      "glade.md in Seraphina's book holds the new keyword",
    );
    expect(fs.existsSync(path.join(root, "glade.md"))).toBe(false);
  });

  test("the Books panel shows each book with the conversations that read it, and each conversation its books", async () => {
    const body = await openPanel(page, "shelf");
    await seeText(body, "Seraphina");
    const readers = await page
      .locator("#shelf .shelf-book")
      .evaluateAll((books) =>
        Object.fromEntries(
          books.map((b) => [(b as HTMLElement).dataset.book, b.querySelectorAll(".shelf-readers li").length]),
        ),
      );
    expect(readers).toEqual({ main: 2, hxh_weather_director: 2, mira: 1, seraphina: 1 });
    await page.locator("#shelf summary").click();
    // And the Conversations panel says which books each read.
    const conversations = await openPanel(page, "conversations");
    await seeText(conversations, "books:");
    const lines = await conversations.locator(".conversation > .muted").allTextContents();
    expect(lines.map((l) => /books: (.+)$/.exec(l)?.[1]).sort()).toEqual([
      "main, hxh_weather_director, mira",
      "main, hxh_weather_director, seraphina",
    ]);
    await page.locator("#conversations summary").click();
  });

  test("the try box as Seraphina reads her book and the world, never Mira's; as Mira, hers", async () => {
    const sentence = "Is the glade safe from the lighthouse keeper?";
    await tryAs("Try as Seraphina", sentence, "main, hxh_weather_director, seraphina");
    const seraphina = await fired();
    expect(seraphina).toContain("glade");
    expect(seraphina).not.toContain("Rules");
    await tryAs("Try as Mira", sentence, "main, hxh_weather_director, mira");
    const mira = await fired();
    expect(mira).toContain("Rules");
    expect(mira).not.toContain("glade");
    // Why each card is or is not in: the same books.
    await seeText(page.locator("#try-why"), "Rules");
    expect(await whyTitles()).not.toContain("glade");
  });

  test("trying as a conversation reads the books its turns read: from the Books panel, Mira's", async () => {
    await openPanel(page, "shelf");
    await page.locator('#shelf .shelf-book[data-book="mira"] .shelf-readers button').click();
    const as = await page.locator("#try-as").evaluate((s) => {
      const select = s as HTMLSelectElement;
      return select.options[select.selectedIndex]!.textContent ?? "";
    });
    expect(as).toContain("mira");
    await page.locator("#try-text").fill("the glade and the lighthouse");
    await page.locator("#try button[type=submit]").click();
    await pollUntil(
      async () => (await page.locator("#try-result").textContent()) ?? "",
      (v) => v.includes("Rules") && v.includes("Books read: main, hxh_weather_director, mira"),
      "the try reads Mira's conversation's books",
    );
    expect(await fired()).not.toContain("glade");
    await page.locator("#shelf summary").click();
  });

  test("a card of another book in a try opens in its book", async () => {
    await page.locator("#book").selectOption("mira");
    await listShows(["Lamp", "Rules"]);
    await tryAs("Try as Seraphina", "Is the glade safe?", "main, hxh_weather_director, seraphina");
    await page.locator("#try-result .fired-list button", { hasText: "glade" }).click();
    await seeText(page.locator("#editor h2"), "glade");
    expect(await page.locator("#book").inputValue()).toBe("seraphina");
    await listShows(["eldoria", "glade", "power", "shadowfang"]);
  });
  // Last: the new book is read in every conversation, so the tries above would read it too.
  test("a lorebook imported into its own book makes that book, and the switch offers it", async () => {
    const panel = await openPanel(page, "books");
    await page.locator('select[name="import-into"]').selectOption("auto");
    await page
      .locator('#books input[type="file"]')
      .setInputFiles(path.join(REAL_FIXTURES, "st-worldinfo-Eldoria.json"));
    await page.locator('#books form[aria-label^="Import"] button[type="submit"]').click();
    const said = await seeText(panel.locator(".import-result .summary"), /into the book \S+ \(new\)/);
    const name = /into the book (\S+) \(new\)/.exec(said)![1]!;
    expect(fs.existsSync(path.join(root, "books", name))).toBe(true);
    await pollUntil(
      async () => (await page.locator("#book option").allTextContents()).join("|"),
      (v) => v.includes(name),
      `the switch offers ${name}`,
    );
    await page.locator("#book").selectOption(name);
    await pollUntil(
      async () => String((await titles()).length),
      (v) => Number(v) > 0,
      `the list shows ${name}'s cards`,
    );
    await page.locator("#books summary").click();
  });

  test("a character card imported as it comes lands where lorecards import puts it, whichever book is shown", async () => {
    const card = path.join(REAL_FIXTURES, "st-card-Seraphina.chara.json");
    // The CLI's answer: the same file imported with its defaults into a copy of the vault as it is now.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "lc-cli-import-"));
    try {
      fs.cpSync(root, copy, { recursive: true, filter: (from) => path.basename(from) !== ".lorecards" });
      const cli = await runBinary(["import", card, "--vault", copy], { env: { HOME: copy } });
      expect({ code: cli.code, err: cli.stderr }).toEqual({ code: 0, err: "" });
      expect(cli.stdout).toContain("into the book seraphina");

      await page.locator("#book").selectOption("mira");
      await listShows(["Lamp", "Rules"]);
      const panel = await openPanel(page, "books");
      await page.locator('#books input[type="file"]').setInputFiles(card);
      await page.locator('#books form[aria-label^="Import"] button[type="submit"]').click();
      await seeText(
        panel.locator(".import-result .summary"),
        "Imported st-card-Seraphina.chara.json into the book seraphina: 0 new, 0 overwritten, 4 kept",
      );
      expect(cardFiles(root)).toEqual(cardFiles(copy));
      // Said where it went, and one press shows it.
      await panel.getByRole("button", { name: "Show the book seraphina" }).click();
      await listShows(["eldoria", "glade", "power", "shadowfang"]);
      expect(await page.locator("#book").inputValue()).toBe("seraphina");
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});

/** Every file of the vault but its state (`.lorecards`), by path, with its text. */
function cardFiles(dir: string, under = ""): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(path.join(dir, under), { withFileTypes: true })) {
    if (entry.name === ".lorecards") continue;
    const rel = path.join(under, entry.name);
    if (entry.isDirectory()) Object.assign(files, cardFiles(dir, rel));
    else files[rel] = fs.readFileSync(path.join(dir, rel), "utf8");
  }
  return files;
}
