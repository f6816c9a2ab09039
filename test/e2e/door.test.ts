// The context door in the editor, driven by headless Chromium: the try box says why each card is or is
// not in, and a conversation recorded in state.db opens to its turns in order, each block's exact text
// with its tier, edited cards marked and what was left out. The compiled binary serves the editor over
// a real vault and state.db. Skipped, with a message, when /usr/bin/chromium is absent.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { openStore, stateUrl } from "../../src/state/index.ts";
import { editorOverVault, haveChromium, openPanel, seeText } from "../support/editor-browser.ts";
import { turnRecord } from "../support/turn-record.ts";

const hasChromium = haveChromium("test/e2e/door.test.ts");

/** A manual card, and a conversation of two turns recorded in the vault's state. */
async function seed(root: string): Promise<void> {
  fs.writeFileSync(
    path.join(root, "people", "Cy.md"),
    "---\ntitle: Cy\nkeywords: [Cy]\ncontext: manual\n---\nCy keeps the keys.\n",
  );
  const store = await openStore(stateUrl(root));
  const rules = "<!-- lc -->\nA memory surfaces:\n\n### Rules [entry]\nBe kind.\n<!-- /lc -->";
  await store.recordTurn(
    turnRecord("conv-7", 1, [
      { tier: "stable", where: "first user message", text: rules, cards: ["entry/Rules"] },
      {
        tier: "volatile",
        where: "newest user message",
        text: "### Alice [people]\nLyon.",
        cards: ["people/Alice"],
      },
    ]),
  );
  await store.recordTurn(
    turnRecord(
      "conv-7",
      2,
      [
        {
          tier: "volatile",
          where: "newest user message",
          text: "### Alice [people]\nLyon, now Paris.",
          cards: ["people/Alice"],
          edited: ["people/Alice"],
        },
        {
          tier: "placed",
          where: "depth 2 as system",
          text: "### Deep [entry]\nDown.",
          cards: ["entry/Deep"],
        },
      ],
      { leftOut: [{ id: "events/the Friday deploy", reason: "budget" }] },
    ),
  );
  await store.close();
}

describe.skipIf(!hasChromium)("the context door in Chromium", () => {
  const it = editorOverVault(seed, { context: { viewport: { width: 1280, height: 900 } } });

  test("the try box says why each card is in, and why one named is not", async () => {
    const { page } = it;
    await page.getByLabel("Try a sentence").fill("Alice and Cy at the corner cafe");
    await page.keyboard.press("Enter");
    const why = page.locator("#try-why");
    // In plain words; the line the CLI prints, in the docs' terms, is the row's tooltip.
    await seeText(why.locator('.why-line[data-key="Alice"]'), "on “alice” (this message)");
    await seeText(why.locator('.why-line[data-key="Cy"]'), "only sent when asked for");
    expect(await why.locator('.why-line[data-key="Alice"]').getAttribute("title")).toContain(
      "“alice” in the current message",
    );
    expect(await why.locator('.why-line[data-key="Cy"]').getAttribute("title")).toContain(
      "manual: it fires only when asked for by name",
    );
  });

  test("a recorded conversation opens to its turns in order, with the exact text of every block", async () => {
    const { page } = it;
    const panel = await openPanel(page, "conversations");
    // Known by its client and the cards that went in, not by its id.
    await seeText(panel.locator(".conversation"), "Cards: Rules, Alice, Deep");
    await panel.getByRole("button", { name: "gateway · OpenAI chat API" }).click();
    await seeText(panel.locator('.turn[data-turn="1"] .sent-block.stable .sent-text'), "### Rules [entry]");
    const second = panel.locator('.turn[data-turn="2"]');
    await seeText(
      second.locator(".sent-block.volatile .card-id.edited"),
      "people/Alice (edited, sent again)",
    );
    await seeText(second.locator(".sent-block.placed .sent-head"), "depth 2 as system");
    await seeText(second.locator(".left-out"), "events/the Friday deploy (no room left in the budget)");
    const turns = await panel
      .locator(".turn")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-turn")));
    expect(turns).toEqual(["1", "2"]);
    const text = await second.locator(".sent-block.volatile .sent-text").textContent();
    expect(text).toBe("### Alice [people]\nLyon, now Paris.");
    await page.screenshot({ path: "/tmp/lorecards-door.png", fullPage: true });
    expect(it.editor.violations).toEqual([]);
  });
});
