// An earlier state beside the current one (seed 004's use(node, snapshot=id), recall/earlier.ts): a card
// as it was at a history version or time, headed "as of", declared (never counted), first in the stable
// block while that block is being made, never mistaken for the card as it is now.
import { afterEach, describe, expect, test } from "bun:test";
import { type Chosen, chosenCards, earlierIn, openEngine } from "../../src/recall/index.ts";
import { createCard, readHistory, updateCard } from "../../src/vault/index.ts";
import { rejectsWith, tempVault } from "../vault/_helpers.ts";

let vault: ReturnType<typeof tempVault>;
afterEach(() => vault?.done());

const draft = (key: string, body: string, extra: Record<string, unknown> = {}) => ({
  kind: "people",
  key,
  frontmatter: { title: key, keywords: [key.toLowerCase()], ...extra },
  body,
});

async function history() {
  vault = tempVault(false);
  await createCard(vault, draft("Premise", "The town runs on tides.\n", { context: "always" }), {
    writer: "cli",
  });
  await createCard(vault, draft("Ann", "Ann keeps the harbour.\n"), { writer: "cli" });
  const [created] = readHistory(vault, "people", "Ann");
  await updateCard(
    vault,
    "people",
    "Ann",
    { body: "Ann left the harbour; Ben keeps it now.\n" },
    { writer: "ui" },
  );
  const engine = await openEngine(vault.root, { segmenter: false });
  return { engine, created: created! };
}

const text = (c: Chosen) => c.text;

describe("an earlier state beside the current one", () => {
  test("Ann@<version> sends the text of then under an 'as of' heading, beside Ann as she is", async () => {
    const { engine, created } = await history();
    const result = await engine.recall([{ role: "user", text: "How is Ann?" }], {
      tiers: true,
      earlier: earlierIn(`Ann@${created.id}`, "usage"),
    });
    const chosen = chosenCards(result);
    const then = chosen.find((c) => c.earlier)!;
    expect(then.id).toBe(`people/Ann@${created.id}`);
    const when = new Date(created.at).toISOString().slice(0, 16).replace("T", " ");
    expect(text(then)).toBe(`### Ann [people, as of ${when} UTC]\nAnn keeps the harbour.\n`);
    expect(chosen.find((c) => c.id === "people/Ann")!.text).toContain("Ann left the harbour");
    // It rides the stable tier, first in the block, before the always-on card.
    const stable = result.blocks.find((b) => b.tier === "stable")!;
    expect(stable.cards).toEqual([`people/Ann@${created.id}`, "people/Premise"]);
    engine.close();
  });

  test("it is never counted against the budget, and goes with the newest message once the stable block is sent", async () => {
    const { engine, created } = await history();
    const result = await engine.recall([{ role: "user", text: "hello" }], {
      tiers: true,
      stableSent: true,
      budget: 1,
      earlier: earlierIn(`Ann@${created.id}`, "usage"),
    });
    expect(chosenCards(result).find((c) => c.earlier)).toMatchObject({ verdict: "chosen", tier: "volatile" });
    engine.close();
  });

  test("in context it is set aside like any card, by its own id; the card as it is now is not", async () => {
    const { engine, created } = await history();
    const id = `people/Ann@${created.id}`;
    const result = await engine.recall([{ role: "user", text: "Ann?" }], {
      inContext: new Set([id]),
      earlier: earlierIn(`Ann@${created.id}`, "usage"),
    });
    expect(result.selection.find((e) => e.id === id)?.verdict).toBe("in_context");
    expect(result.selection.find((e) => e.id === "people/Ann")?.verdict).toBe("chosen");
    engine.close();
  });

  test("a card or a version that is not there is not_found, or passed over with a warning", async () => {
    const { engine } = await history();
    await rejectsWith("not_found", () =>
      engine.recall([{ role: "user", text: "x" }], { earlier: earlierIn("Zed@1", "usage") }),
    );
    await rejectsWith("not_found", () =>
      engine.recall([{ role: "user", text: "x" }], { earlier: earlierIn("Ann@2000-01-01", "usage") }),
    );
    const warned: string[] = [];
    const result = await engine.recall([{ role: "user", text: "x" }], {
      earlier: earlierIn("Zed@1", "usage"),
      warn: (l) => warned.push(l),
    });
    expect(chosenCards(result).some((c) => c.earlier)).toBe(false);
    expect(warned[0]).toContain('no card named "Zed"');
    engine.close();
  });

  test.each([
    ["Ann@3", [{ name: "Ann", point: { version: 3 } }]],
    [
      "the Ledger@2026-06-01, Ann@4",
      [
        { name: "the Ledger", point: { at: Date.parse("2026-06-01T00:00:00") } },
        { name: "Ann", point: { version: 4 } },
      ],
    ],
  ])("%p reads as asks", (line, asks) => {
    expect(earlierIn(line, "usage")).toEqual(asks);
  });

  test.each([["Ann"], ["@3"], ["Ann@soon"]])("%p is a usage error", async (line) => {
    await rejectsWith("usage", () => earlierIn(line, "usage"));
  });

  test("a point that is no version or time is said as the point after its name", () => {
    expect(() => earlierIn("Ann@soon", "usage")).toThrow(
      'the point after "Ann@" takes a version number or a date and time (2025-06-01, 2025-06-01T14:30, …), got "soon"',
    );
  });
});
