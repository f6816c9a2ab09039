// The editor's toasts in headless Chromium against the compiled binary, on a clock the test moves
// (Playwright's fake timers), so no test waits for real time to pass: a confirmation fades, but a toast
// that offers Undo stays however long the person looked away, until they dismiss it, a newer action's
// Undo takes its place or they move on to another card; it is a status a screen reader reads, and its
// Undo a button the keyboard reaches.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import {
  editorOverVault,
  haveChromium,
  openFromList,
  pollUntil,
  seeText,
} from "../support/editor-browser.ts";

setDefaultTimeout(120_000);

let root = "";
let page: Page;

const TEN_MINUTES = 10 * 60_000;
const ALICE = "people/Alice.md";
const CAFE = "places/the corner cafe.md";
const disabled = (rel: string) => /^enabled: false$/m.test(fs.readFileSync(path.join(root, rel), "utf8"));

/** Ticks the rows of these cards until the page shows them selected. */
async function select(...ids: string[]): Promise<void> {
  for (const id of ids) {
    const row = page.locator(`#card-list [role="option"][data-id="${id}"]`);
    await pollUntil(
      async () => {
        if ((await row.getAttribute("aria-selected")) !== "true") await row.locator(".tick").click();
        return (await row.getAttribute("aria-selected")) ?? "";
      },
      (v) => v === "true",
      `${id} selected`,
    );
  }
}

/** Disables the selected cards from the bulk bar; resolves once the page says so. */
async function disableSelected(said: string): Promise<void> {
  await page.locator("#bulk").getByRole("button", { name: "Disable" }).click();
  await seeText(page.locator("#toasts"), said);
}

const undoToasts = () => page.locator("#toasts .toast", { has: page.getByRole("button", { name: "Undo" }) });

describe.skipIf(!haveChromium("test/e2e/editor-toast.test.ts"))(
  "the editor's toasts, on a clock the test moves",
  () => {
    const it = editorOverVault();
    beforeAll(async () => {
      ({ root, page } = it);
      // The page's timers from its first script on: load it again under the fake clock.
      await page.clock.install();
      await page.reload();
      await page.locator("body[data-started]").waitFor({ state: "attached" });
    });

    test("an Undo stays after ten minutes away, as a status whose button the keyboard reaches; a confirmation fades", async () => {
      await select("people/Alice");
      await disableSelected("Disabled 1 card.");
      expect(disabled(ALICE)).toBe(true);
      await page.clock.runFor(TEN_MINUTES);
      const toast = undoToasts();
      await expect(toast.count()).resolves.toBe(1);
      expect(await toast.getAttribute("role")).toBe("status");
      expect(await toast.textContent()).toContain("Disabled 1 card.");
      const undo = toast.getByRole("button", { name: "Undo" });
      await undo.focus();
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Undo");
      await page.keyboard.press("Enter");
      await seeText(page.locator("#toasts"), "Undone: 1 card put back as they were.");
      await pollUntil(
        async () => String(disabled(ALICE)),
        (v) => v === "false",
        "Alice enabled again",
      );
      // The confirmation of the undo offers nothing more: it fades.
      await page.clock.runFor(TEN_MINUTES);
      await pollUntil(
        async () => String(await page.locator("#toasts .toast").count()),
        (v) => v === "0",
        "the confirmation to fade",
      );
    });

    test("a newer action's Undo takes the older one's place, and Undo takes back the newer action", async () => {
      await select("people/Alice");
      await disableSelected("Disabled 1 card.");
      // Alice again with the cafe: the newer toast says so, and its step changed the cafe alone.
      await select("people/Alice", "place/the corner cafe");
      await disableSelected("Disabled 1 card. 1 card already were.");
      await pollUntil(
        async () => String(disabled(ALICE) && disabled(CAFE)),
        (v) => v === "true",
        "Alice and the cafe disabled",
      );
      await page.clock.runFor(TEN_MINUTES);
      await expect(undoToasts().count()).resolves.toBe(1);
      expect(await undoToasts().textContent()).toContain("1 card already were.");
      await undoToasts().getByRole("button", { name: "Undo" }).click();
      await seeText(page.locator("#toasts"), "Undone: 1 card put back as they were.");
      await pollUntil(
        async () => String(disabled(CAFE)),
        (v) => v === "false",
        "the cafe enabled again",
      );
      expect(disabled(ALICE)).toBe(true);
    });

    test("a card archived from its form offers Undo, which brings it back and opens it", async () => {
      const live = () => fs.existsSync(path.join(root, ALICE));
      await openFromList(page, "Alice");
      await page.locator("form.card-form").getByRole("button", { name: "Archive" }).click();
      await seeText(undoToasts(), "Archived “Alice”");
      expect([live(), fs.existsSync(path.join(root, "_archive", ALICE))]).toEqual([false, true]);
      await undoToasts().getByRole("button", { name: "Undo" }).click();
      await seeText(page.locator("#toasts"), "Restored “Alice”.");
      expect(live()).toBe(true);
      await seeText(page.locator(".editor-head h2"), "Alice");
      expect(page.url()).toEndWith("#/people/Alice");
      await seeText(page.locator('#card-list [data-id="people/Alice"]'), "Alice");
    });

    test("an Undo goes when the person opens another card, and Recent changes still takes the step back", async () => {
      await select("people/Alice", "place/the corner cafe");
      await page.locator("#bulk .tag-input").fill("met");
      await page.locator("#bulk").getByRole("button", { name: "Tag", exact: true }).click();
      await seeText(undoToasts(), "Tagged 2 cards “met”.");
      const tagged = () => String(/^tags: \[?met/m.test(fs.readFileSync(path.join(root, ALICE), "utf8")));
      expect(tagged()).toBe("true");
      await openFromList(page, "the corner cafe");
      await expect(undoToasts().count()).resolves.toBe(0);
      const changes = page.locator("#changes");
      if (!(await changes.evaluate((d) => (d as HTMLDetailsElement).open)))
        await changes.locator("summary").click();
      await changes
        .getByRole("button", { name: /^Undo step/ })
        .first()
        .click();
      await seeText(page.locator("#toasts"), "Undone: 2 cards put back as they were.");
      await pollUntil(
        async () => tagged(),
        (v) => v === "false",
        "Alice untagged",
      );
    });

    test("an Undo goes when the person dismisses it", async () => {
      await select("people/Alice");
      await page.locator("#bulk").getByRole("button", { name: "Enable" }).click();
      await seeText(page.locator("#toasts"), "Enabled 1 card.");
      await undoToasts().getByRole("button", { name: "Dismiss" }).click();
      await expect(undoToasts().count()).resolves.toBe(0);
      expect(disabled(ALICE)).toBe(false);
    });
  },
);
