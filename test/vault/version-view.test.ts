// How a version is shown (vault/version-view.ts): the one-line summary `history` lists, and the diff.
import { describe, expect, test } from "bun:test";
import type { VersionRow } from "../../src/vault/index.ts";
import { cardParts, changedParts, summarize, versionDiff } from "../../src/vault/version-view.ts";

const CARD = "---\ntitle: Bob\nkeywords:\n  - bob\n---\nA note.\n## who\nA drummer.\n## recent\nNew snare.\n";

function row(
  action: string,
  before: string | null,
  after: string | null,
  reverted_to: number | null = null,
): VersionRow {
  return {
    id: 7,
    kind: "people",
    key: "Bob",
    at: 0,
    writer: "ui",
    action,
    before,
    after,
    reverted_to,
    step: 7,
  };
}

describe("parts of a card", () => {
  test("each top-level key, the text before the first section, and each section is a part", () => {
    expect(Object.fromEntries(cardParts(CARD))).toEqual({
      title: "title: Bob\n",
      keywords: "keywords:\n  - bob\n",
      text: "A note.\n",
      "## who": "## who\nA drummer.\n",
      "## recent": "## recent\nNew snare.\n",
    });
  });

  test.each([
    ["a keyword added", CARD.replace("  - bob\n", "  - bob\n  - bobby\n"), ["keywords"]],
    ["a section edited", CARD.replace("A drummer.", "A singer."), ["## who"]],
    ["a section removed", CARD.replace("## recent\nNew snare.\n", ""), ["## recent"]],
    ["a key added", CARD.replace("title: Bob\n", "title: Bob\npriority: 3\n"), ["priority"]],
    ["nothing but trailing space", CARD.replace("A drummer.", "A drummer. "), []],
  ])("%s", (_what, after, parts) => {
    expect(changedParts(CARD, after)).toEqual(parts);
  });
});

describe("the summary line", () => {
  test.each([
    ["create", null, CARD, null, "created, 10 lines"],
    ["import", null, CARD, null, "imported, 10 lines"],
    ["restore", null, CARD, null, "restored from the archive, 10 lines"],
    ["archive", CARD, null, null, "archived"],
    ["update", CARD, CARD.replace("A drummer.", "A singer."), null, "## who (+1 -1 lines)"],
    [
      "import",
      CARD,
      CARD.replace("New snare.", "Old snare.\nA gig."),
      null,
      "imported: ## recent (+2 -1 lines)",
    ],
    ["revert", CARD.replace("A drummer.", "A singer."), CARD, 3, "back to #3: ## who (+1 -1 lines)"],
    ["import", CARD, CARD, null, "imported: no change"],
  ])("%s: %p → %p says so", async (action, before, after, to, expected) => {
    expect(await summarize(row(action, before, after, to))).toBe(expected);
  });
});

test("the diff is unified hunks with three lines of context, and the same as patch text", async () => {
  const { hunks, patch } = await versionDiff(row("update", CARD, CARD.replace("A drummer.", "A singer.")));
  expect(hunks).toEqual([
    {
      old_start: 5,
      old_lines: 6,
      new_start: 5,
      new_lines: 6,
      lines: [" ---", " A note.", " ## who", "-A drummer.", "+A singer.", " ## recent", " New snare."],
    },
  ]);
  expect(patch).toContain("--- people/Bob before #7\n+++ people/Bob after #7\n@@ -5,6 +5,6 @@\n");
});
