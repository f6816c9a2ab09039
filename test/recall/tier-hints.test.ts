// Tier hints (seed 004's use(node, "stable")): a card's `tier:` field or the request's hint says which
// block it starts in; a real change (an edit, a stable block already sent) and a place of its own win.
import { describe, expect, test } from "bun:test";
import type { TierHint } from "../../src/card/types.ts";
import { chosenCards, type RecallOptions, tierHintsIn } from "../../src/recall/index.ts";
import { lorebook, person } from "./_lorebook.ts";

const book = () =>
  lorebook([
    person("Premise", "context: always", "The town runs on tides.\n"),
    person("Tone", "context: always\ntier: volatile", "Dry and brief.\n"),
    person("Ann", "tier: stable", "The harbourmaster.\n"),
    person("Ben"),
    person("Cy", "tier: stable\nposition: an_top", "Sings at the top.\n"),
  ]);

async function tiers(options: RecallOptions = {}, text = "Ann, Ben and Cy") {
  const result = await (await book()).recall([text], { tiers: true, ...options });
  return Object.fromEntries(chosenCards(result).map((c) => [c.card.key, c.tier]));
}

describe("tier hints", () => {
  test("a card's tier: stable starts a named card in the stable block; volatile keeps an always card out", async () => {
    expect(await tiers()).toEqual({
      Premise: "stable",
      Tone: "volatile",
      Ann: "stable",
      Ben: "volatile",
      Cy: "placed",
    });
  });

  test("the request's hint wins over the card's", async () => {
    const hinted = await tiers({
      tierHints: [
        { name: "Ann", tier: "volatile" },
        { name: "Ben", tier: "stable" },
      ],
    });
    expect(hinted).toMatchObject({ Ann: "volatile", Ben: "stable" });
  });

  test("once the stable block is in place nothing joins it, whatever the hint", async () => {
    expect(await tiers({ stableSent: true })).toMatchObject({ Premise: "volatile", Ann: "volatile" });
  });

  test("an edited card is sent again with the newest message whatever its hint says", async () => {
    const b = await book();
    const first = await b.recall(["Ann"], { tiers: true });
    const ann = chosenCards(first).find((c) => c.card.key === "Ann")!;
    const edited = await b.recall(["Ann"], {
      tiers: true,
      inContext: new Set([ann.id]),
      sent: new Map([[ann.id, "sha256:an-earlier-version"]]),
    });
    const again = chosenCards(edited).find((c) => c.card.key === "Ann")!;
    expect(again).toMatchObject({ edited: true, tier: "volatile", hint: "stable" });
  });

  test.each([
    [
      "Ann=stable, the Premise = volatile",
      [
        { name: "Ann", tier: "stable" },
        { name: "the Premise", tier: "volatile" },
      ],
      [],
    ],
    ["Ann=STABLE", [{ name: "Ann", tier: "stable" }], []],
    ["Ann, Ben=sideways, =stable", [], ["Ann", "Ben=sideways", "=stable"]],
  ] as [string, { name: string; tier: TierHint }[], string[]][])(
    "%p reads as hints and leftovers",
    (line, hints, bad) => {
      expect(tierHintsIn(line)).toEqual({ hints, bad });
    },
  );
});
