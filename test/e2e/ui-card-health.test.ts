// The editor's "Recall and adoption" panel in Chromium: the compiled binary serves the page over a vault
// whose state holds a few index recalls and adoptions; the panel gives the counts per class, lists the
// cards worth a look with how often they were listed and opened, opens a card in the editor when its
// name is clicked, and breaks none of the page's Content-Security-Policy. Skipped, with a message,
// when /usr/bin/chromium is absent.
import { describe, expect, test } from "bun:test";
import { openStore, stateUrl } from "../../src/state/index.ts";
import { editorOverVault, haveChromium, openPanel } from "../support/editor-browser.ts";

const hasChromium = haveChromium("test/e2e/ui-card-health.test.ts");

/** Alice listed 12 times and opened once (noisy); the Friday deploy listed and opened (healthy). */
async function seed(root: string): Promise<void> {
  const store = await openStore(stateUrl(root), { warn: () => {} });
  const now = Date.now();
  for (let i = 0; i < 12; i++) {
    const query = `q${String(i).padStart(12, "0")}`;
    const cards = ["people/Alice", ...(i === 0 ? ["event/the Friday deploy"] : [])];
    await store.recordRecall({ session: "hook:s", query, at: now - i * 3_600_000, surface: "hook", cards });
  }
  const q0 = "q000000000000";
  await store.recordAdoption({ session: "hook:s", query: q0, card: "people/Alice", at: now });
  await store.recordAdoption({ session: "hook:s", query: q0, card: "event/the Friday deploy", at: now });
  await store.close();
}

describe.skipIf(!hasChromium)("the Recall and adoption panel in Chromium", () => {
  const it = editorOverVault(seed);

  test("opening it gives the counts per class and the cards worth a look; a name opens the card", async () => {
    const body = await openPanel(it.page, "card-health");
    await body.locator(".summary").waitFor();
    expect(await body.locator(".summary").textContent()).toBe(
      "Last 30 days, 12 index recall(s): 3 dead, 1 noisy, 0 underperforming, 1 healthy.",
    );
    const items = await body.locator("li").allTextContents();
    expect(items).toEqual([
      "deadpeople/小林listed 0, opened 0 (–)",
      "deadplace/the corner cafelisted 0, opened 0 (–)",
      "deadthing/the blue notebooklisted 0, opened 0 (–)",
      "noisypeople/Alicelisted 12, opened 1 (8%)",
    ]);
    await body.locator("li.noisy button").click();
    await it.page.locator("#editor input[name=title]").waitFor();
    expect(await it.page.locator("#editor input[name=title]").inputValue()).toBe("Alice");
    expect(it.editor.violations).toEqual([]);
  });
});
