// The stages of recall as plain functions over one selection, and the verdicts a recall reports.
import { afterEach, describe, expect, test } from "bun:test";
import type { CardMeta } from "../../src/card/types.ts";
import { markersFromSecret } from "../../src/inject/index.ts";
import {
  chosenCards,
  contextText,
  firedCards,
  injectedKeys,
  leftOut,
  openEngine,
  type Selected,
  vetoed,
} from "../../src/recall/index.ts";
import { budget } from "../../src/recall/stages/budget.ts";
import { order } from "../../src/recall/stages/order.ts";
import { place } from "../../src/recall/stages/place.ts";
import { renderBlocks } from "../../src/recall/stages/render.ts";
import { select } from "../../src/recall/stages/select.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";
import { chosenEntry, entry, inContextEntry } from "./_entry.ts";

let vault: TempVault | undefined;
afterEach(() => vault?.remove());

const user = (text: string) => ({ role: "user" as const, text });
const FRAMING = "A memory surfaces:\n\n";
const markers = markersFromSecret("test secret");

const verdicts = (selection: readonly Selected[]) =>
  selection.map((e) => [e.card.key, e.verdict, e.reason ?? "", (e.verdict === "chosen" && e.cutTo) || ""]);

describe("select sets aside what is already in front of the model", () => {
  test("an id the caller recorded is in context (recorded), a heading in a block of ours too (present)", () => {
    const out = select([entry("Ann", "### Ann [people]\n"), entry("Ben", "x"), entry("Cy", "y")], {
      inContext: new Set(["people/Ann"]),
      present: [
        "<!-- lorecards:abc -->\nA memory surfaces:\n\n### Ben [people]\nBen.\n<!-- /lorecards:abc -->",
      ],
    });
    expect(verdicts(out)).toEqual([
      ["Ann", "in_context", "recorded", ""],
      ["Ben", "in_context", "present", ""],
      ["Cy", "fired", "", ""],
    ]);
  });

  test("a heading only quoted inside a line is not a card in context", () => {
    const out = select([entry("Ann", "x")], { present: ["see ### Ann [people] here"] });
    expect(out[0]!.verdict).toBe("fired");
  });
});

describe("order", () => {
  test("score descending, then priority descending, then title; ties keep their first-hit order", () => {
    const low = entry("Low", "x", {
      card: { key: "Low", kind: "people", title: "Low", priority: -1 } as CardMeta,
    });
    const out = order([entry("Zed", "x"), low, entry("Amy", "x"), entry("Top", "x", { score: 3 })]);
    expect(out.map((e) => e.card.key)).toEqual(["Top", "Amy", "Zed", "Low"]);
  });
});

describe("budget", () => {
  const limits = { budget: 10, framing: FRAMING };

  test.each([
    ["the top card always gets in, even over budget", [20], ["chosen"]],
    ["cards fit while the sum stays within the budget", [4, 6], ["chosen", "chosen"]],
    [
      "the first card over the budget stops the list, smaller ones after it too",
      [6, 6, 1],
      ["chosen", "left_out", "left_out"],
    ],
  ])("%s", (_name, sizes, expected) => {
    const out = budget(
      sizes.map((n, i) => entry(`C${i}`, "x".repeat(n))),
      limits,
    );
    expect(out.map((e) => e.verdict)).toEqual(expected as Selected["verdict"][]);
    for (const e of out) if (e.verdict === "left_out") expect(e.reason).toBe("budget");
  });

  test("cards set aside before it take no room", () => {
    const out = budget([inContextEntry("Ann", "x".repeat(9)), entry("Ben", "y".repeat(9))], limits);
    expect(verdicts(out)).toEqual([
      ["Ann", "in_context", "recorded", ""],
      ["Ben", "chosen", "", ""],
    ]);
  });

  test("a surface cap leaves cards out from the end, counting framing and markers", () => {
    const cards = [entry("Ann", `${"a".repeat(40)}\n`), entry("Ben", `${"b".repeat(40)}\n`)];
    const whole = renderBlocks(budget(place(cards), { ...limits, budget: 1000, markers }), {
      framing: FRAMING,
      markers,
    })[0]!.wrapped!;
    const fits = budget(cards, { ...limits, budget: 1000, markers, maxContextChars: whole.length });
    expect(verdicts(fits).map((v) => v[1])).toEqual(["chosen", "chosen"]);
    const over = budget(cards, { ...limits, budget: 1000, markers, maxContextChars: whole.length - 1 });
    expect(verdicts(over)).toEqual([
      ["Ann", "chosen", "", ""],
      ["Ben", "left_out", "surface_cap", ""],
    ]);
  });

  test("a lone card over the surface cap is kept and cut, ending in an ellipsis, exactly at the cap", () => {
    const cap = 120;
    const out = budget(place([entry("Ann", `### Ann [people]\n${"word 😀 ".repeat(40)}\n`)]), {
      ...limits,
      markers,
      maxContextChars: cap,
    });
    expect(out[0]!.verdict).toBe("chosen");
    const [block] = renderBlocks(out, { framing: FRAMING, markers });
    expect(block!.wrapped!.length).toBeLessThanOrEqual(cap);
    expect(block!.wrapped!.length).toBeGreaterThan(cap - 2); // an emoji is two code units
    expect(block!.wrapped).toEndWith(`…\n${markers.close}`);
  });
});

describe("place and render", () => {
  test("every card that fired carries its own placement; the chosen ones make the one default block", () => {
    const placed = [
      chosenEntry("Ann", "A\n"),
      leftOut(entry("Ben", "B\n"), "budget"),
      vetoed(entry("Cy", "C\n"), { reason: "never" }),
    ];
    const none = { position: null, depth: null, role: null };
    expect(placed.map((e) => (e.verdict === "vetoed" ? undefined : e.placement))).toEqual([
      none,
      none,
      undefined,
    ]);
    expect(renderBlocks(placed, { framing: FRAMING })).toEqual([
      { tier: "volatile", at: null, cards: ["people/Ann"], text: "A memory surfaces:\n\nA\n" },
    ]);
  });

  test("with markers the block is also given wrapped, exactly as a surface inserts it", () => {
    const placed = [chosenEntry("Ann", "A\n")];
    const [block] = renderBlocks(placed, { framing: FRAMING, markers });
    expect(block!.wrapped).toBe(`${markers.open}\nA memory surfaces:\n\nA\n${markers.close}`);
  });

  test("no chosen card, no block", () => {
    expect(renderBlocks([inContextEntry("Ann", "A\n")], { framing: FRAMING })).toEqual([]);
  });
});

describe("a recall reports every card's verdict", () => {
  test("vetoed cards are in the selection with their rule, never in fired", async () => {
    vault = tempVault({
      "people/Ann.md": cardText("keywords: [Ann]\ninject: off", "x\n"),
      "people/Ben.md": cardText("keywords: [Ben]\nsecondary:\n  all: [garden]", "y\n"),
      "people/Cy.md": cardText("keywords: [Cy]", "z\n"),
    });
    const engine = await openEngine(vault.root, { segmenter: false });
    const r = await engine.recall([user("Ann, Ben and Cy")]);
    expect(r.selection.map((e) => [e.card.key, e.verdict, e.reason])).toEqual([
      ["Ann", "vetoed", "not_automatic"],
      ["Ben", "vetoed", "secondary"],
      ["Cy", "chosen", undefined],
    ]);
    expect(firedCards(r).map((f) => f.card.key)).toEqual(["Cy"]);
  });

  test("chosen, blocks and context agree; inBudget and inContext are derived from the verdict", async () => {
    vault = tempVault({
      "people/Ann.md": cardText("keywords: [Ann]", "short\n"),
      "people/Ben.md": cardText("keywords: [Ben]", `${"x".repeat(900)}\n`),
      "people/Cy.md": cardText("keywords: [Cy]", "tiny\n"),
    });
    const engine = await openEngine(vault.root, { segmenter: false });
    const r = await engine.recall([user("Ann, Ben and Cy")], { inContext: new Set(["people/Cy"]) });
    expect(
      firedCards(r).map((f) => [
        f.card.key,
        f.verdict,
        f.reason,
        f.verdict === "chosen",
        f.verdict === "in_context",
      ]),
    ).toEqual([
      ["Ann", "chosen", undefined, true, false],
      ["Ben", "left_out", "budget", false, false],
      ["Cy", "in_context", "recorded", false, true],
    ]);
    expect(chosenCards(r).map((c) => c.card.key)).toEqual(injectedKeys(r));
    expect(r.blocks.map((b) => [b.tier, b.cards])).toEqual([["volatile", ["people/Ann"]]]);
    expect(contextText(r)).toBe(r.blocks[0]!.text);
  });
});
