// The editor's history panel end to end: the compiled binary serves the page, headless Chromium saves a
// card, opens "History of this card", sees the change as a line diff, and reverts it; every write the
// page made is the editor's (`ui`) in `lorecards history`. Skipped, with a message, without Chromium.
import { beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { runBinary } from "../support/binary.ts";
import { editorOverVault, haveChromium, openPanel, pollUntil, seeText } from "../support/editor-browser.ts";

const hasChromium = haveChromium("test/e2e/ui-history.test.ts");

let root = "";
let page: Page;

const read = () => fs.readFileSync(path.join(root, "people", "Alice.md"), "utf8");

describe.skipIf(!hasChromium)("the history panel in Chromium", () => {
  const it = editorOverVault(async () => {}, { context: { viewport: { width: 1280, height: 900 } } });
  beforeAll(() => {
    ({ root, page } = it);
  });

  test("saves show in the panel as the editor's, a version's diff shows its lines, and a revert puts the card back", async () => {
    await page.locator(".row", { hasText: "Alice" }).first().click();
    await seeText(page.locator(".editor-head h2"), "Alice");
    for (const who of ["My sister; moved to Lyon in May.", "My sister; now in Paris."]) {
      // The page rebuilds the form once the save is answered, and then says so: wait for that.
      await page.evaluate(() => {
        document.querySelector("#toasts")!.replaceChildren();
      });
      await page.getByLabel("who", { exact: true }).fill(who);
      await page.getByRole("button", { name: "Save" }).click();
      await seeText(page.locator("#toasts"), "Saved “Alice”");
      expect(read()).toContain(who);
    }
    const afterFirst = read().replace("now in Paris.", "moved to Lyon in May.");

    const panel = await openPanel(page, "history");
    await seeText(panel, "the editor · ## who (+1 -1 lines)");
    expect(await panel.locator(".versions li").count()).toBe(2);
    await panel.locator(".versions button").nth(1).click();
    const removed = "-The user's sister; lives in Lyon.";
    const added = "+My sister; moved to Lyon in May.";
    await seeText(panel.locator(".diff .del", { hasText: removed }), removed);
    await seeText(panel.locator(".diff .add", { hasText: added }), added);

    await panel.getByRole("button", { name: /^Revert to #\d+$/ }).click();
    await seeText(page.locator("#toasts"), "is back as it was after version");
    await pollUntil(
      async () => read(),
      (v) => v === afterFirst,
      "the card is as after the first save",
    );
    await pollUntil(
      () => page.getByLabel("who", { exact: true }).inputValue(),
      (v) => v === "My sister; moved to Lyon in May.",
      "the form shows the reverted card",
    );

    const history = await runBinary(["history", "Alice", "--json", "--vault", root]);
    const versions = JSON.parse(history.stdout).versions as { writer: string; action: string }[];
    expect(versions.map((v) => [v.action, v.writer])).toEqual([
      ["revert", "ui"],
      ["update", "ui"],
      ["update", "ui"],
    ]);
  });
});
