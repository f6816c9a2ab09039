// One record per card, one type per outcome: what a record can say is what its outcome has. The
// `@ts-expect-error` lines are checked by the typecheck (`npm run typecheck`), the rest here.
import { describe, expect, test } from "bun:test";
import {
  type Chosen,
  cardVersion,
  chosen,
  leftOut,
  type Selected,
  sentVersions,
  vetoed,
} from "../../src/recall/index.ts";
import { entry } from "./_entry.ts";

describe("outcomes", () => {
  test("a chosen card carries its tier, placement, text and version; a veto its rule", () => {
    const ann = chosen(entry("Ann", "### Ann [people]\nhi\n", { tier: "stable" }));
    expect([ann.tier, ann.placement, ann.text, ann.version]).toEqual([
      "stable",
      { position: null, depth: null, role: null },
      "### Ann [people]\nhi\n",
      cardVersion("### Ann [people]\nhi\n"),
    ]);
    const ben = vetoed(entry("Ben"), {
      reason: "group",
      stop: { group: "g", how: "draw", winner: "people/Ann" },
    });
    expect(ben.verdict === "vetoed" && ben.reason === "group" && ben.stop.winner).toBe("people/Ann");
  });

  test("an outcome sheds what the one before had: a card the cap drops keeps no tier or version", () => {
    const out = leftOut(chosen(entry("Ann"), { cutTo: 3 }), "surface_cap");
    expect(Object.keys(out)).not.toContain("version");
    expect(Object.keys(out)).not.toContain("tier");
    expect(Object.keys(out)).not.toContain("cutTo");
    expect([out.verdict, out.reason]).toEqual(["left_out", "surface_cap"]);
  });

  test("a verdict and a reason of another outcome do not type-check together", () => {
    const fired = entry("Ann");
    // @ts-expect-error a chosen card has no reason
    const wrong: Selected = { ...fired, verdict: "chosen", reason: "secondary" };
    // @ts-expect-error a secondary veto carries the word rule that stopped it
    const bare: Selected = { ...fired, verdict: "vetoed", reason: "secondary" };
    // @ts-expect-error a chosen card has a version
    const unversioned: Chosen = { ...fired, verdict: "chosen", tier: "volatile" };
    expect([wrong, bare, unversioned].length).toBe(3);
  });
});

describe("a card's version", () => {
  test("is the hash of the text sent: the same text, the same version; another text, another", () => {
    expect(cardVersion("### Ann\nhi\n")).toBe(cardVersion("### Ann\nhi\n"));
    expect(cardVersion("### Ann\nhi\n")).not.toBe(cardVersion("### Ann\nho\n"));
    expect(cardVersion("x")).toMatch(/^sha256:[0-9a-f]{16}$/);
  });

  test("what a conversation sent: the latest version of each card; rows from before versions were hashes say nothing", () => {
    const sent = sentVersions([
      { id: "people/Ann", version: cardVersion("a") },
      { id: "people/Ann", version: cardVersion("b") },
      { id: "people/Ben", version: "1700000000000:42" },
    ]);
    expect([...sent]).toEqual([["people/Ann", cardVersion("b")]]);
  });
});
