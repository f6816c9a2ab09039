// The editor's "What it costs" panel in Chromium: the compiled binary serves the page over a vault whose
// state holds a few measured turns; the panel draws a bar pair per day of the last week, says
// what was saved, names the blamed card, and breaks none of the page's Content-Security-Policy.
// Skipped, with a message, when /usr/bin/chromium is absent.
import { describe, expect, test } from "bun:test";
import { openStore, stateUrl } from "../../src/state/index.ts";
import { turnRecord, usage } from "../state/contract.ts";
import { editorOverVault, haveChromium, openPanel } from "../support/editor-browser.ts";

const hasChromium = haveChromium("test/e2e/ui-stats.test.ts");

async function seed(root: string): Promise<void> {
  const store = await openStore(stateUrl(root), { warn: () => {} });
  const now = Date.now();
  const early = {
    tier: "stable" as const,
    where: "system",
    text: "s".repeat(200),
    cards: ["people/Alice"],
    early: true,
  };
  await store.recordTurn(turnRecord("chat-1", 1, now - 86_400_000));
  await store.recordUsage("chat-1", 1, usage(200, 3000), now - 86_400_000);
  await store.recordTurn(
    turnRecord("chat-1", 2, now, { promptChars: 8000, sharedChars: 6000, blocks: [early] }),
  );
  await store.recordUsage("chat-1", 2, usage(4000), now);
  await store.close();
}

describe.skipIf(!hasChromium)("the What it costs panel in Chromium", () => {
  const it = editorOverVault(seed);

  test("opening it draws two bars a day for a week (as stats does), the totals, the saving and the blamed card", async () => {
    const body = await openPanel(it.page, "stats");
    await body.locator(".stats-chart").waitFor();
    expect(await body.locator(".stats-chart rect").count()).toBe(14);
    expect(await body.locator(".stats-chart rect.cost").count()).toBe(7);
    const summary = (await body.locator(".summary").textContent()) ?? "";
    expect(summary).toContain("Last 7 days: 2 turns");
    expect(summary).toContain(
      "Sending every card afresh each turn, as the original tool did, would have cost",
    );
    // The chart has a scale: the highest bar's value at the top, 0 at the baseline.
    expect(await body.locator(".stats-chart text").first().textContent()).toMatch(/^\d/);
    expect(await body.locator(".blame").textContent()).toContain("people/Alice (1)");
    expect(await body.locator(".stats-list li").count()).toBe(1);
    expect(it.editor.violations).toEqual([]);
  });
});
