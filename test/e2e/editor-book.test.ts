// The editor with a real book, in headless Chromium at 1440×900 against the compiled binary: the 761-entry
// book goes in by a drop on the drop zone, with its progress and every note and warning; then search of
// card text, every sort, every filter, and each bulk action on the selected cards, each checked in the
// vault's files afterwards, and each bulk action taken back by one Undo. Skipped without Chromium or the book.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { editorOverVault, haveChromium, openPanel, pollUntil, seeText } from "../support/editor-browser.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";

const WHO = "test/e2e/editor-book.test.ts";
const hasChromium = haveChromium(WHO);
const hasBook = haveRealFixture(WHO, "sora_Eldoria_V10.6.0.json");
const BOOK = path.join(REAL_FIXTURES, "sora_Eldoria_V10.6.0.json");

setDefaultTimeout(120_000);

let root: string;
let page: Page;

const read = (rel: string) => fs.readFileSync(path.join(root, rel), "utf8");
/** The card files an import put in the vault's root (the `entry` kind). */
const entryFiles = () => fs.readdirSync(root).filter((n) => n.endsWith(".md"));
/** The titles of the rows in the page, top to bottom. */
const titles = () =>
  page.evaluate(() =>
    [...document.querySelectorAll('#card-list [role="option"]')]
      .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)
      .map((o) => o.querySelector(".row-title")?.textContent ?? ""),
  );

async function search(text: string): Promise<void> {
  await page.getByLabel("Search the cards").fill(text);
}

async function filter(name: string, value: string): Promise<void> {
  if (!(await page.locator("#filters").evaluate((d) => (d as HTMLDetailsElement).open)))
    await page.locator("#filters summary").click();
  await page.locator(`#filters select[name="${name}"]`).selectOption(value);
}

async function clearAll(): Promise<void> {
  await search("");
  await page.locator('#filters input[name="warnings"]').uncheck({ force: true });
  if (await page.locator("#filters").evaluate((d) => (d as HTMLDetailsElement).open))
    await page.getByRole("button", { name: "Clear filters" }).click();
  await page.locator("#sort").selectOption("title");
}

/** Drops a file on the import drop zone, as a person drags it there from their files. */
async function dropFile(file: string): Promise<void> {
  const b64 = fs.readFileSync(file).toString("base64");
  await page.evaluate(
    ({ name, b64 }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: "application/json" }));
      const zone = document.querySelector('[data-drop="book"]')!;
      for (const type of ["dragenter", "dragover", "drop"])
        zone.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    { name: path.basename(file), b64 },
  );
}

describe.skipIf(!hasChromium || !hasBook)("the editor with the real 761-entry book, in Chromium", () => {
  const it = editorOverVault(async () => {}, { context: { viewport: { width: 1440, height: 900 } } });
  beforeAll(async () => {
    ({ root, page } = it);
    page.on("dialog", (d) => void d.accept());
    await page.locator('[role="option"]').first().waitFor();
  });

  test("the book goes in by a drop: progress as it is written, then every note and warning, naming its card", async () => {
    const panel = await openPanel(page, "books");
    // What the status line said while the import ran, and whether the progress bar moved.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { __said: string[] }).__said = seen;
      const status = document.querySelector(".import-status")!;
      new MutationObserver(() => seen.push(status.textContent ?? "")).observe(status, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    // Into the cards the list shows (by default a lorebook makes a book of its own, as the CLI's import).
    await page.getByLabel("Import into").selectOption("shown");
    await dropFile(BOOK);
    await seeText(
      panel.locator(".import-result .summary"),
      "Imported sora_Eldoria_V10.6.0.json into the vault's own cards (main): 761 new",
    );
    const said = await page.evaluate(() => (window as unknown as { __said: string[] }).__said);
    expect(said.some((s) => s.startsWith("Reading sora_Eldoria_V10.6.0.json"))).toBe(true);
    expect(said.some((s) => /^Writing the cards: \d+%$/.test(s))).toBe(true);
    // The write checks' warnings each name a card, with a link that opens it.
    const worth = panel.locator(".import-part", { hasText: "Worth fixing" });
    const first = worth.locator("li button.link").first();
    const card = (await first.textContent())!;
    expect(card).toMatch(/^entry\//);
    // The always-on entries do not fit the budget: said at once, where the import was asked for.
    await seeText(panel.locator(".import-budget"), "always-on card");
    expect(entryFiles()).toHaveLength(761);
    await first.click();
    await seeText(page.locator(".editor-head h2"), card.slice("entry/".length));
    // The whole import is one step of the history.
    const changes = await openPanel(page, "changes");
    await seeText(changes, "an import imported sora_Eldoria_V10.6.0.json: 761 cards");
  });

  test("search finds a card by a word of its text alone, and marks the word", async () => {
    const word = "当前章节";
    const holding = entryFiles().filter((f) => read(f).split("\n---\n").slice(1).join("").includes(word));
    await search(word);
    await seeText(page.locator("#list-status"), `${holding.length} of 766 cards match`);
    const marks = await page.locator("#card-list .row-sub mark").allTextContents();
    expect(marks.length).toBeGreaterThan(0);
    expect(new Set(marks)).toEqual(new Set([word]));
    await clearAll();
  });

  test.each([
    ["Thalion", "Thalion的领域"],
    ["银流鱼", "第18章 银流鱼的馈赠——森林的第一次接纳"],
  ])(
    "searching %p lists the card of that title first, then titles that start with it",
    async (name, after) => {
      await search(name);
      // Once the server's text search has answered too, the order holds.
      await seeText(page.locator("#list-status"), "match");
      const top = await pollUntil(
        async () => (await titles()).slice(0, 2).join(" | "),
        (v) => v.startsWith(`${name} | `),
        `${name} first`,
      );
      expect(top.split(" | ")[0]).toBe(name);
      expect(await titles()).toContain(after);
      await clearAll();
    },
  );

  test("each sort orders the list as it says", async () => {
    await filter("book", "sora_Eldoria_V10.6.0.json");
    const first = async () => (await titles())[0];
    /** The page loaded again (it reads the disk), the book's cards sorted by `sort`: `title` comes first. */
    const firstAfterReload = async (sort: string, title: string, what: string) => {
      await page.reload();
      await page.locator('[role="option"]').first().waitFor();
      await filter("book", "sora_Eldoria_V10.6.0.json");
      await page.locator("#sort").selectOption(sort);
      await pollUntil(
        async () => (await first()) ?? "",
        (t) => t === title,
        what,
      );
    };
    // Size, largest first: the sizes shown never grow down the list.
    await page.locator("#sort").selectOption("tokens");
    const sizes = await page.locator("#card-list .size").allTextContents();
    const numbers = sizes.map((s) => Number(s.replace(/[^\d]/g, "")));
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    // Last edited: a card saved now comes first.
    const someone = entryFiles().find((f) => f.startsWith("Thalion"))!;
    fs.appendFileSync(path.join(root, someone), "\nEdited now.\n");
    await firstAfterReload("edited", someone.slice(0, -3), "the edited card first");
    // Most often sent, and never sent first: from the hit log.
    const hit = JSON.stringify({
      time: new Date().toISOString(),
      source: "gateway",
      keys: ["Seraphina"],
      words: [],
      message: "",
    });
    fs.mkdirSync(path.join(root, ".lorecards"), { recursive: true });
    fs.writeFileSync(path.join(root, ".lorecards", "hits.jsonl"), `${hit}\n${hit}\n`);
    await firstAfterReload("fired", "Seraphina", "the card sent most first");
    await page.locator("#sort").selectOption("never");
    expect(await first()).not.toBe("Seraphina");
    // Priority: highest first.
    fs.writeFileSync(path.join(root, someone), read(someone).replace("\ntitle:", "\npriority: 9\ntitle:"));
    await firstAfterReload("priority", someone.slice(0, -3), "the card of priority 9 first");
    // Lorebook order: lower first.
    await page.locator("#sort").selectOption("order");
    expect(await first()).toBeDefined();
    const orders = await page.evaluate(async () => {
      const r = await fetch("/api/cards", { headers: { accept: "application/json" } });
      const { cards } = (await r.json()) as { cards: { title: string; order: number | null }[] };
      return Object.fromEntries(cards.map((c) => [c.title, c.order]));
    });
    const shown = (await titles()).map((t) => orders[t] ?? Number.POSITIVE_INFINITY);
    expect(shown).toEqual([...shown].sort((a, b) => a - b));
    // Title: as a person reads them, letter case and accents aside.
    await page.locator("#sort").selectOption("title");
    const key = (t: string) => t.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
    const byTitle = (await titles()).map(key);
    expect(byTitle).toEqual([...byTitle].sort());
    await clearAll();
  });

  test("each filter narrows the list to what it names", async () => {
    const always = entryFiles().filter((f) => /^context: always$/m.test(read(f))).length;
    expect(always).toBe(15);
    await filter("policy", "always");
    await seeText(page.locator("#list-status"), `${always} of 766 cards match`);
    await clearAll();
    await filter("book", "sora_Eldoria_V10.6.0.json");
    await seeText(page.locator("#list-status"), "761 of 766 cards match");
    await clearAll();
    await filter("kind", "people");
    await seeText(page.locator("#list-status"), "2 of 766 cards match");
    await clearAll();
    // With warnings: the cards whose values fell back to a default, as the list answer counts them.
    const warned = await page.evaluate(async () => {
      const { cards } = (await (await fetch("/api/cards")).json()) as { cards: { warnings: number }[] };
      return cards.filter((c) => c.warnings > 0).length;
    });
    await page.locator('#filters input[name="warnings"]').check();
    await seeText(
      page.locator("#list-status"),
      warned === 0 ? "No cards match." : `${warned} of 766 cards match`,
    );
    await clearAll();
  });

  test("each bulk action changes every selected card on disk as one step, and one Undo takes it back", async () => {
    await search("好感度");
    await page.locator("#card-list .row").first().waitFor();
    const picked = (await titles()).slice(0, 3);
    // Each imported card's file is named after its title.
    const rowOf = (title: string) => page.locator(`[role="option"][data-id="entry/${title}"]`);
    const files = picked.map((t) => `${t}.md`);
    const before = files.map(read);
    // Ticks a row until the page shows it selected. A click that lands as the list is drawn again (its
    // rows made anew when the list reloads after a step) or as a toast comes up over the row is lost, as
    // it would be for a person, who clicks again: the page, not the click, says whether it took.
    const tick = (title: string) =>
      pollUntil(
        async () => {
          const row = rowOf(title);
          if ((await row.getAttribute("aria-selected")) !== "true") await row.locator(".tick").click();
          return (await row.getAttribute("aria-selected")) ?? "";
        },
        (v) => v === "true",
        `${title} selected`,
      );
    const select = async () => {
      for (const t of picked) await tick(t);
      await seeText(page.locator("#bulk"), "3 cards selected");
    };
    // How many toasts have said an undo was done: the page's own word that it has the answer.
    await page.evaluate(() => {
      const w = window as unknown as { __undone: number };
      w.__undone = 0;
      new MutationObserver((changes) => {
        for (const c of changes)
          for (const n of c.addedNodes) if (n.textContent?.startsWith("Undone:")) w.__undone++;
      }).observe(document.querySelector("#toasts")!, { childList: true });
    });
    const undone = () => page.evaluate(() => String((window as unknown as { __undone: number }).__undone));
    const undo = async () => {
      const told = Number(await undone());
      await page.locator(".toast").last().getByRole("button", { name: "Undo" }).click();
      await pollUntil(
        async () => String(files.every((f, i) => fs.existsSync(path.join(root, f)) && read(f) === before[i])),
        (v) => v === "true",
        "the cards back byte for byte",
      );
      // The page has the answer too (its toast; the list loads again) before the next step's clicks.
      await pollUntil(undone, (v) => Number(v) > told, "the page saying the undo was done");
    };
    const act = async (what: () => Promise<unknown>, check: () => boolean, label: string) => {
      await select();
      await what();
      await pollUntil(
        async () => String(check()),
        (v) => v === "true",
        label,
      );
      await undo();
    };
    await act(
      () => page.locator("#bulk").getByRole("button", { name: "Disable" }).click(),
      () => files.every((f) => /^enabled: false$/m.test(read(f))),
      "disabled",
    );
    await act(
      () => page.locator("#bulk select").first().selectOption("never"),
      () => files.every((f) => /^context: never$/m.test(read(f))),
      "never sent",
    );
    await act(
      () => page.locator("#bulk select").nth(1).selectOption("thing"),
      () =>
        files.every((f) => fs.existsSync(path.join(root, "things", f)) && !fs.existsSync(path.join(root, f))),
      "moved to things/",
    );
    await act(
      async () => {
        await page.locator("#bulk .tag-input").fill("season 2");
        await page.locator("#bulk").getByRole("button", { name: "Tag", exact: true }).click();
      },
      () => files.every((f) => read(f).includes("tags: [season 2]")),
      "tagged",
    );
    await act(
      () => page.locator("#bulk").getByRole("button", { name: "Archive" }).click(),
      () =>
        files.every(
          (f) => fs.existsSync(path.join(root, "_archive", f)) && !fs.existsSync(path.join(root, f)),
        ),
      "archived",
    );
    // Enable: shown by the filter for disabled cards, and enabled by one action on all of them.
    await select();
    await page.locator("#bulk").getByRole("button", { name: "Disable" }).click();
    await pollUntil(
      async () => String(/^enabled: false$/m.test(read(files[0]!))),
      (v) => v === "true",
      "disabled",
    );
    await filter("enabled", "off");
    await seeText(page.locator("#list-status"), "3 of 766 cards match");
    await tick(picked[0]!);
    await page
      .locator("#bulk")
      .getByRole("button", { name: /^Select all 3/ })
      .click();
    await seeText(page.locator("#bulk"), "3 cards selected");
    await page.locator("#bulk").getByRole("button", { name: "Enable" }).click();
    // Enabling takes `enabled: false` out (one Undo would give back the file's own `enabled: true`).
    await pollUntil(
      async () => String(files.every((f) => !/^enabled:/m.test(read(f)))),
      (v) => v === "true",
      "enabled again",
    );
    await seeText(page.locator("#list-status"), "No cards match.");
    // A tag is a filter of its own, and Untag takes it off every card selected.
    await clearAll();
    await search("好感度");
    await select();
    await page.locator("#bulk .tag-input").fill("season 2");
    await page.locator("#bulk").getByRole("button", { name: "Tag", exact: true }).click();
    await pollUntil(
      async () => String(files.every((f) => read(f).includes("tags: [season 2]"))),
      (v) => v === "true",
      "tagged",
    );
    await search("");
    await filter("tag", "season 2");
    await seeText(page.locator("#list-status"), "3 of 766 cards match");
    await tick(picked[0]!);
    await page
      .locator("#bulk")
      .getByRole("button", { name: /^Select all 3/ })
      .click();
    await page.locator("#bulk .tag-input").fill("season 2");
    await page.locator("#bulk").getByRole("button", { name: "Untag" }).click();
    await pollUntil(
      async () => String(files.every((f) => !read(f).includes("tags:"))),
      (v) => v === "true",
      "untagged",
    );
    // Every step is listed in Recent changes, as the person did it.
    const changes = await openPanel(page, "changes");
    await seeText(changes, "the editor enabled: 3 cards");
    await clearAll();
  });
});
