// The write checks in the web editor (README "Write checks"): the compiled binary serves the page and
// the API, headless Chromium saves cards like a user. A saved card's warnings show under the form; a
// refused save shows the refusal and leaves the vault as it was. Skipped, with a message, when
// /usr/bin/chromium is absent.
import { beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { vaultFiles } from "../support/card-vault.ts";
import { editorOverVault, haveChromium, seeText } from "../support/editor-browser.ts";

const hasChromium = haveChromium("test/e2e/ui-write-checks.test.ts");

let root = "";
let page: Page;

async function newCard(title: string, keywords: string, priority?: number): Promise<void> {
  await page.getByRole("button", { name: "New card" }).click();
  await page.getByLabel("Kind", { exact: true }).selectOption("people");
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Keywords", { exact: true }).fill(keywords);
  if (priority !== undefined) {
    await page.getByText("More settings").click();
    await page.getByLabel("Priority").fill(String(priority));
  }
  await page.getByRole("button", { name: "Create card" }).click();
}

describe.skipIf(!hasChromium)("the editor shows the write checks", () => {
  // Five cards at priority 2 already: the cap of the raised priority is reached.
  const it = editorOverVault(async (vault) => {
    for (let i = 1; i <= 5; i++) {
      fs.writeFileSync(
        path.join(vault, "things", `Top ${i}.md`),
        `---\nkeywords: [top ${i}]\npriority: 2\n---\nx\n`,
      );
    }
  });
  beforeAll(async () => {
    ({ root, page } = it);
    await page.locator(".row", { hasText: "Alice" }).waitFor();
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
