// One card at a time in the editor, in headless Chromium against the compiled binary: every lorebook field
// has a control and is saved as the field the CLI reads (a value it could not use is refused, naming the
// field); refs are picked from the vault's cards and the card named shows who names it; feedback stays in
// view and closes with Escape; conversations are known by client, model, time and cards, and named; each
// card has an address, so a phone's Back returns to the list; a long name widens nothing. Each checked in
// the vault's files or its state afterwards.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import YAML from "yaml";
import { openStore, stateUrl } from "../../src/state/index.ts";
import {
  type EditorInChromium,
  editorOverVault,
  haveChromium,
  holdRequests,
  openFromList,
  openPanel,
  pollUntil,
  seeText,
} from "../support/editor-browser.ts";
import { turnRecord } from "../support/turn-record.ts";

const hasChromium = haveChromium("test/e2e/editor-card.test.ts");
setDefaultTimeout(60_000);

let root: string;
let base = "";
let editor: EditorInChromium;
let browser: Browser;
let page: Page;

const read = (rel: string) => fs.readFileSync(path.join(root, rel), "utf8");
const frontmatter = (rel: string) => YAML.parse(read(rel).split("---\n")[1]!) as Record<string, unknown>;
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const LONG = "Lorem".repeat(34);

const open = (title: string, on: Page = page) => openFromList(on, title);

/**
 * Opens the form's `<details>` whose summary says `label`: clicked until the page shows it open, so the
 * test goes on from what the page shows, not from a click having been sent.
 */
async function expand(label: string, on: Page = page): Promise<void> {
  const summary = on.locator("form.card-form summary", { hasText: label });
  const isOpen = () => summary.evaluate((s) => String((s.parentElement as HTMLDetailsElement).open));
  await pollUntil(
    async () => {
      if ((await isOpen()) !== "true") await summary.click();
      return isOpen();
    },
    (v) => v === "true",
    `${label} open`,
  );
}

/** Marks the form shown now, so a test can tell whether a later answer replaced it. */
function markForm(): Promise<void> {
  return page.evaluate(() => {
    (document.querySelector("form.card-form") as HTMLFormElement).dataset.mine = "";
  });
}

/** Opens Alice, types 12 into her lorebook order and marks the form: what a late answer must not undo. */
async function typeInAlice(): Promise<Locator> {
  await open("Alice");
  await expand("Lorebook settings");
  const order = page.locator("form.card-form").getByLabel("Order", { exact: true });
  await order.fill("12");
  await markForm();
  return order;
}

/** Whether an element's box is inside the window as scrolled now. */
function inView(on: Page, selector: string): Promise<boolean> {
  return on.evaluate((sel) => {
    const r = document.querySelector(sel)!.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth;
  }, selector);
}

/** A card with a long name, and a conversation of two turns recorded in the vault's state. */
async function seed(vault: string): Promise<void> {
  fs.writeFileSync(
    path.join(vault, "people", "Long.md"),
    `---\ntitle: ${LONG}\nkeywords: [long]\n---\n## who\nA name.\n`,
  );
  const store = await openStore(stateUrl(vault));
  const marked =
    "<!-- lorecards:0123456789ab -->\n### Alice [people]\nLyon.\n<!-- /lorecards:0123456789ab -->";
  await store.recordTurn(
    turnRecord(
      "chat-9",
      1,
      [{ tier: "volatile", where: "newest user message", text: marked, cards: ["people/Alice"] }],
      {
        model: "gpt-5",
      },
    ),
  );
  await store.recordTurn(
    turnRecord("chat-9", 2, [], {
      model: "gpt-5",
      leftOut: [{ id: "people/Alice", reason: "in_context" }],
      replayedChars: 40,
    }),
  );
  await store.close();
}

describe.skipIf(!hasChromium)("one card in the editor, in Chromium", () => {
  const it = editorOverVault(seed, { context: { viewport: { width: 1440, height: 900 } } });
  beforeAll(async () => {
    ({ root, editor, page } = it);
    ({ browser, url: base } = editor);
    // Leaving a card with unsaved edits asks first (a reload, too): the tests say yes.
    page.on("dialog", (d) => void d.accept());
    await page.locator('[role="option"]').first().waitFor();
  });

  test("every lorebook field has a control, is saved as the field the CLI reads, and cleared is gone", async () => {
    await open("Alice");
    const form = page.locator("form.card-form");
    await expand("Lorebook settings");
    const set = async (label: string, value: string) => {
      const control = form.getByLabel(label, { exact: true });
      if ((await control.evaluate((e) => e.tagName)) === "SELECT") await control.selectOption(value);
      else await control.fill(value);
    };
    const tick = (label: string) => form.getByLabel(label, { exact: true }).check();
    await set("Sent", "always");
    await set("Chance (%)", "50");
    await tick("Does not count against the budget");
    await tick("Match letter case");
    await set("Whole words", "true");
    await tick("Keywords are regular expressions");
    await set("Messages to look back", "4");
    await set("Place", "at_depth");
    await set("Messages back", "2");
    await set("As a message from", "system");
    await set("Order", "7");
    await set("Groups", "north, south");
    await tick("Wins its group");
    await set("Weight in the draw", "30");
    await set("Best match first", "true");
    await set("Stays in for", "2");
    await set("Rests for", "3");
    await set("Not before message", "4");
    await tick("Never brought in by another card's text");
    await tick("Its text brings no other card in");
    await tick("Comes in only through another card's text");
    await form.getByRole("button", { name: "Save" }).click();
    await seeText(page.locator("#toasts"), "Saved “Alice”");
    expect(frontmatter("people/Alice.md")).toMatchObject({
      context: "always",
      probability: 50,
      ignore_budget: true,
      case_sensitive: true,
      whole_words: true,
      regex: true,
      scan_messages: 4,
      position: "at_depth",
      depth: 2,
      role: "system",
      order: 7,
      group: ["north", "south"],
      group_override: true,
      group_weight: 30,
      group_scoring: true,
      sticky: 2,
      cooldown: 3,
      delay: 4,
      exclude_recursion: true,
      prevent_recursion: true,
      delay_until_recursion: true,
    });
    // The CLI reads them as set: `read --json` shows what they resolve to.
    const check = Bun.spawnSync([
      path.join(import.meta.dir, "..", "..", "dist", "lorecards"),
      "read",
      "Alice",
      "--json",
      "--vault",
      root,
    ]);
    expect(JSON.parse(check.stdout.toString()).rules).toMatchObject({
      context: "always",
      position: "at_depth",
      depth: 2,
      group: ["north", "south"],
    });

    // Cleared, each field goes from the file.
    await form.locator("summary", { hasText: "Lorebook settings" }).waitFor();
    const f2 = page.locator("form.card-form");
    if (!(await f2.locator("details.lorebook").evaluate((d) => (d as HTMLDetailsElement).open)))
      await f2.locator("summary", { hasText: "Lorebook settings" }).click();
    for (const select of await f2.locator("details.lorebook select").all()) await select.selectOption("");
    for (const input of await f2.locator('details.lorebook input:not([type="checkbox"])').all())
      await input.fill("");
    for (const box of await f2.locator('details.lorebook input[type="checkbox"]').all()) await box.uncheck();
    await f2.getByRole("button", { name: "Save" }).click();
    await pollUntil(
      async () => read("people/Alice.md"),
      (t) => !/^(context|order|group|sticky):/m.test(t),
      "the fields gone",
    );
    // And no `kind:` or `title:` line the file never had: the folder is the kind, the file name the title.
    expect(Object.keys(frontmatter("people/Alice.md")).sort()).toEqual(["keywords"]);
  });

  test("a value the CLI could not use, or out of its control's range, is refused in the form, naming the field; the file stays as it was", async () => {
    await open("Alice");
    const before = read("people/Alice.md");
    const form = page.locator("form.card-form");
    await expand("Lorebook settings");
    await form.getByLabel("Weight in the draw", { exact: true }).fill("0");
    await form.getByRole("button", { name: "Save" }).click();
    await seeText(form.locator(".form-slot"), "group_weight 0 is not a number above 0");
    // Out of the control's range, the browser itself stops the save, and the form says why, opening
    // the settings folded away meanwhile.
    await form.getByLabel("Weight in the draw", { exact: true }).fill("");
    await form.getByLabel("Chance (%)", { exact: true }).fill("150");
    await form.locator("details.lorebook > summary").click();
    await form.getByRole("button", { name: "Save" }).click();
    await seeText(form.locator(".form-slot"), "Chance (%): probability 150 is not a number from 0 to 100.");
    expect(await form.locator("details.lorebook").evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe(
      "lb:probability",
    );
    expect(
      await form
        .getByLabel("Chance (%)", { exact: true })
        .evaluate((e) => (e as HTMLInputElement).validity.valid),
    ).toBe(false);
    expect(read("people/Alice.md")).toBe(before);
  });

  test("a card's header and its row in the list say one size in tokens, and after a save the new one", async () => {
    await open("the blue notebook");
    const row = page.locator('#card-list [data-id="thing/the blue notebook"] .size');
    const head = page.locator(".editor-head .size");
    /** How many tokens the header says and how many the row says, once both say. */
    const counts = async () => {
      const tokens = async (l: Locator) => /([\d,]+) tokens?/.exec((await l.textContent()) ?? "")?.[1] ?? "?";
      return `${await tokens(head)} | ${await tokens(row)}`;
    };
    const agree = (v: string) => !v.includes("?") && v.split(" | ")[0] === v.split(" | ")[1];
    const before = await pollUntil(counts, agree, "the header and the row agree");
    await page.locator("form.card-form textarea").first().fill("Where the plans go. ".repeat(20));
    await page.locator("form.card-form").getByRole("button", { name: "Save" }).click();
    await seeText(page.locator("#toasts"), "Saved “the blue notebook”");
    await pollUntil(counts, (v) => agree(v) && v !== before, "a new count, the same in both");
  });

  test("a card opened while the page is still starting stays as the person has it", async () => {
    // The books' answer, the last the page waits for at the start, is held until the person has opened
    // a card, its lorebook settings, and typed in one.
    const books = await holdRequests(page, "**/api/books");
    const asked: string[] = [];
    const ask = (d: { message(): string }) => void asked.push(d.message());
    try {
      await page.reload();
      await page.locator('[role="option"]').first().waitFor();
      // Asked from now on, the page as it starts (a reload's own "leave the page?" is before).
      page.on("dialog", ask);
      expect(await page.evaluate(() => "started" in document.body.dataset)).toBe(false);
      const order = await typeInAlice();
      books.release();
      await page.locator("body[data-started]").waitFor({ state: "attached" });
      expect(asked).toEqual([]);
      expect(await page.locator("form.card-form[data-mine] details.lorebook[open]").count()).toBe(1);
      expect(await order.inputValue()).toBe("12");
    } finally {
      page.off("dialog", ask);
      await books.stop();
    }
  });

  test("a card the address names, still on its way at the start, does not replace the card the person opened meanwhile", async () => {
    // The address names the corner cafe; its answer is held until the person has opened Alice and typed.
    const cafe = await holdRequests(page, "**/api/cards/places/the%20corner%20cafe");
    try {
      await page.goto(`${base}/?again#/places/the%20corner%20cafe`);
      await page.locator('[role="option"]').first().waitFor();
      await cafe.untilAsked("the address's card asked for");
      const order = await typeInAlice();
      cafe.release();
      await page.locator("body[data-started]").waitFor({ state: "attached" });
      expect(await page.locator("form.card-form[data-mine]").count()).toBe(1);
      expect(await page.locator(".editor-head h2").textContent()).toBe("Alice");
      expect(await order.inputValue()).toBe("12");
    } finally {
      await cafe.stop();
    }
  });

  test("a save still on its way when the person opens another card saves, and leaves the newer card's form alone", async () => {
    await page.reload();
    await page.locator('[role="option"]').first().waitFor();
    await open("Alice");
    const save = await holdRequests(page, "**/api/cards/people/Alice", (method) => method === "PUT");
    try {
      const form = page.locator("form.card-form");
      await form.locator('[name="keywords"]').fill("Alice, Ally");
      await form.getByRole("button", { name: "Save" }).click();
      await save.untilAsked("the save sent");
      await open("the corner cafe");
      await markForm();
      save.release();
      await seeText(page.locator("#toasts"), "Saved “Alice”");
      expect(frontmatter("people/Alice.md").keywords).toEqual(["Alice", "Ally"]);
      expect(await page.locator("form.card-form[data-mine]").count()).toBe(1);
      expect(await page.locator(".editor-head h2").textContent()).toBe("the corner cafe");
    } finally {
      await save.stop();
    }
  });

  test("refs are picked from the vault's cards, and the card named shows who names it", async () => {
    await page.reload();
    await page.locator('[role="option"]').first().waitFor();
    await open("Alice");
    const form = page.locator("form.card-form");
    await expand("More settings");
    const combo = form.getByRole("combobox", { name: "See also (refs)" });
    await combo.fill("corner");
    await form.getByRole("option", { name: /the corner cafe/ }).waitFor();
    await combo.press("ArrowDown");
    await combo.press("Enter");
    await seeText(form.locator(".ref-chips"), "the corner cafe");
    await form.getByRole("button", { name: "Save" }).click();
    await pollUntil(
      async () => read("people/Alice.md"),
      (t) => t.includes("refs: [the corner cafe]"),
      "the ref saved",
    );
    await open("the corner cafe");
    const links = page.locator("form.card-form details.links");
    await links.locator("summary").click();
    await seeText(links.locator(".links-part", { hasText: "Named by" }), "Alice");
  });

  test("feedback stays in view wherever the page is scrolled, and Escape or × closes it", async () => {
    await open("Alice");
    // What earlier tests said is not this test's.
    await page.evaluate(() => document.querySelector("#toasts")!.replaceChildren());
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.locator("form.card-form").getByRole("button", { name: "Save" }).click();
    await seeText(page.locator("#toasts"), "Saved “Alice”");
    expect(await inView(page, "#toasts .toast:last-child")).toBe(true);
    await page.keyboard.press("Escape");
    await pollUntil(
      async () => String(await page.locator("#toasts .toast").count()),
      (n) => n === "0",
      "the toast closed",
    );
    await page.locator("form.card-form").getByRole("button", { name: "Save" }).click();
    const saved = page.locator("#toasts .toast", { hasText: "Saved “Alice”" }).last();
    await saved.waitFor();
    const before = await page.locator("#toasts .toast").count();
    await saved.getByRole("button", { name: "Dismiss" }).click();
    expect(await page.locator("#toasts .toast").count()).toBe(before - 1);
  });

  test("conversations are known by client, model, time and the cards that went in, and the person names them", async () => {
    const panel = await openPanel(page, "conversations");
    const row = panel.locator(".conversation").first();
    await seeText(row, "gateway · OpenAI chat API · gpt-5");
    await seeText(row, "2 turns");
    await seeText(row, "Cards: Alice");
    await row.getByRole("button").click();
    // What went in reads as the card's text, without our marker lines.
    const first = await panel.locator('.turn[data-turn="1"] .sent-text').textContent();
    expect(first).toBe("### Alice [people]\nLyon.");
    await seeText(
      panel.locator('.turn[data-turn="2"]'),
      "Nothing new: the cards were already in the conversation",
    );
    await panel.getByLabel("Name of this conversation").fill("Planning the Lyon trip");
    await panel.getByRole("button", { name: "Name it" }).click();
    await seeText(page.locator("#toasts"), "Named “Planning the Lyon trip”");
    const store = await openStore(stateUrl(root));
    expect((await store.conversations(5))[0]).toMatchObject({ id: "chat-9", name: "Planning the Lyon trip" });
    await store.close();
    await page.reload();
    await seeText(
      (await openPanel(page, "conversations")).locator(".conversation button"),
      "Planning the Lyon trip",
    );
  });

  test("on a phone, each card has an address: Back returns to the list, and the address opens the card", async () => {
    const phone = await browser.newContext(PHONE);
    const p = await phone.newPage();
    await p.goto(`${base}/`);
    await p.locator(".row", { hasText: "Alice" }).first().tap();
    await seeText(p.locator(".editor-head h2"), "Alice");
    expect(p.url()).toBe(`${base}/#/people/Alice`);
    await p.goBack();
    await p.locator(".side").waitFor();
    await p.locator("#editor").waitFor({ state: "hidden" });
    expect(p.url()).toBe(`${base}/`);
    await p.goto(`${base}/#/places/the%20corner%20cafe`);
    await seeText(p.locator(".editor-head h2"), "the corner cafe");
    // A failed import says so in view, not a screen's height above it.
    await p.goBack();
    const books = await openPanel(p, "books");
    await books.getByLabel("Lorebook or character card (.json, .png, .charx)").setInputFiles({
      name: "broken.json",
      mimeType: "application/json",
      buffer: Buffer.from("{ not json"),
    });
    await books.getByRole("button", { name: "Import", exact: true }).tap();
    await seeText(p.locator("#toasts .toast.error"), "Import of broken.json failed");
    expect(await inView(p, "#toasts .toast.error")).toBe(true);
    await phone.close();
  });

  test("on a desktop, Back closes the card the address no longer names; unsaved changes stay on screen", async () => {
    const desk = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const p = await desk.newPage();
      await p.goto(`${base}/`);
      await open("Alice", p);
      expect(p.url()).toBe(`${base}/#/people/Alice`);
      await p.goBack();
      await seeText(p.locator("#editor .empty"), "Pick a card on the left, or start a new one.");
      expect(await p.locator("form.card-form").count()).toBe(0);
      // A form with changes the person has not saved is not thrown away by Back.
      await open("Alice", p);
      await p.locator('form.card-form input[name="keywords"]').fill("Alice, Ally");
      await p.goBack();
      expect(p.url()).toBe(`${base}/`);
      expect(await p.locator('form.card-form input[name="keywords"]').inputValue()).toBe("Alice, Ally");
    } finally {
      await desk.close();
    }
  });

  test("Cancel on “Discard your unsaved changes?” keeps the card and its address, after a click, Back or Forward", async () => {
    const desk = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const p = await desk.newPage();
      const asked: string[] = [];
      p.on("dialog", (d) => {
        asked.push(d.message());
        void d.dismiss();
      });
      const ALICE = `${base}/#/people/Alice`;
      const CAFE = `${base}/#/place/the%20corner%20cafe`;
      /** The page as it stands: the address, the card on screen and its keywords as typed. */
      const shown = async () =>
        [
          p.url(),
          await p.locator(".editor-head h2").textContent(),
          await p.locator('form.card-form input[name="keywords"]').inputValue(),
        ].join(" | ");
      const stays = (what: string) =>
        pollUntil(shown, (v) => asked.length === what.length && v === `${ALICE} | Alice | Alice, Ally`, what);
      await p.goto(`${base}/`);
      await open("Alice", p);
      await open("the corner cafe", p);
      await p.goBack();
      await seeText(p.locator(".editor-head h2"), "Alice");
      expect(p.url()).toBe(ALICE);
      await p.locator('form.card-form input[name="keywords"]').fill("Alice, Ally");
      // Forward to the cafe, Cancel: Alice, her address and what was typed stay.
      await p.goForward();
      await stays("F");
      // A click on another card, Cancel: the same.
      await p.locator(".row", { hasText: "the corner cafe" }).first().click();
      await stays("FC");
      // Forward again, as before: the history is as it was, the cafe still ahead.
      await p.goForward();
      await stays("FCF");
      // Back to the list keeps the form (as the test above says), and Forward to Alice asks nothing.
      await p.goBack();
      await pollUntil(
        async () => p.url(),
        (u) => u === `${base}/`,
        "Back at the list",
      );
      await p.goForward();
      await stays("FCF");
      expect(asked.every((m) => m.startsWith("Discard your unsaved changes"))).toBe(true);
      // Moving on after all: the cafe opens, at its address.
      p.removeAllListeners("dialog");
      p.on("dialog", (d) => void d.accept());
      await p.goForward();
      await seeText(p.locator(".editor-head h2"), "the corner cafe");
      expect(p.url()).toBe(CAFE);
    } finally {
      await desk.close();
    }
  });

  test("a title of 170 letters with no space widens nothing, on a desktop or a phone", async () => {
    for (const options of [{ viewport: { width: 1440, height: 900 } }, PHONE]) {
      const context = await browser.newContext(options);
      const p = await context.newPage();
      await p.goto(`${base}/#/people/Long`);
      await seeText(p.locator(".editor-head h2"), LONG);
      const [scroll, width] = await p.evaluate(() => [
        document.documentElement.scrollWidth,
        window.innerWidth,
      ]);
      expect(scroll).toBeLessThanOrEqual(width!);
      await context.close();
    }
  });
});
