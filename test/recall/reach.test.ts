// One-hop reach: the fired cards' own text is scanned once for more cards, never cascading.
import { describe, expect, test } from "bun:test";
import { leftOutCards } from "../../src/recall/index.ts";
import { chosen, lorebook, person, verdictOf, verdicts } from "./_lorebook.ts";

/** Ann's text names Ben, Ben's names Cy: a chain two hops long. */
const chain = (ann = "", ben = "", cy = "") => [
  person("Ann", ann, "Ann works with Ben.\n"),
  person("Ben", ben, "Ben keeps bees with Cy.\n"),
  person("Cy", cy, "Cy sings.\n"),
];

describe("one-hop reach", () => {
  test("a card named in a fired card's text is reached; what it names is not", async () => {
    const book = await lorebook(chain());
    expect(verdicts(await book.recall(["Ann"]))).toEqual(["Ann chosen named", "Ben chosen reached"]);
  });

  test("reach: named scans only the person's words", async () => {
    const book = await lorebook(chain());
    expect(chosen(await book.recall(["Ann"], { reach: "named" }))).toEqual(["Ann"]);
  });

  test("reach: named still shows what one hop would have added, vetoed reach_named, never sent", async () => {
    const book = await lorebook(chain());
    const result = await book.recall(["Ann"], { reach: "named" });
    expect(verdicts(result)).toEqual(["Ann chosen named", "Ben vetoed/reach_named reached"]);
    expect(result.selection.find((e) => e.id.endsWith("/Ben"))?.reachedFrom).toMatch(/\/Ann$/);
  });

  test("reach: named releases no delay_until_recursion card and shows none a gate stops", async () => {
    const held = await lorebook(chain("", "delay_until_recursion: true"));
    expect(verdictOf(await held.recall(["Ann and Ben"], { reach: "named" }), "Ben")).toBe(
      "Ben vetoed/recursion_only named",
    );
    const gated = await lorebook(chain("", "secondary: { all: [honey] }"));
    expect(verdictOf(await gated.recall(["Ann"], { reach: "named" }), "Ben")).toBe("absent");
  });

  test.each([
    ["prevent_recursion: the card's text reaches nothing", "prevent_recursion: true", "", "absent"],
    ["exclude_recursion: the card is never reached", "", "exclude_recursion: true", "absent"],
    ["delay_until_recursion: reached, it fires", "", "delay_until_recursion: true", "Ben chosen reached"],
    ["a manual card is not reached", "", "context: manual", "Ben vetoed/not_automatic reached"],
    ["a never card is not reached", "", "context: never", "Ben vetoed/never reached"],
    ["a reached card's draw applies", "", "probability: 0", "Ben vetoed/probability reached"],
    [
      "a reached card's secondary words are looked for in the text that reached it",
      "",
      "secondary: { all: [honey] }",
      "Ben vetoed/secondary reached",
    ],
  ])("%s", async (_name, ann, ben, expected) => {
    const book = await lorebook(chain(ann, ben));
    expect(verdictOf(await book.recall(["Ann"]), "Ben")).toBe(expected);
  });

  test("reached cards rank after every named card and are the first the budget drops", async () => {
    const book = await lorebook([...chain(), person("Zed", "", `${"z".repeat(20)}\n`)]);
    const all = await book.recall(["Ann and Zed"], { budget: 10_000 });
    expect(chosen(all)).toEqual(["Ann", "Zed", "Ben"]);
    const tight = await book.recall(["Ann and Zed"], { budget: 80 });
    expect(chosen(tight)).toEqual(["Ann", "Zed"]);
    expect(leftOutCards(tight).map((f) => [f.card.key, f.via, f.reason])).toEqual([
      ["Ben", "reached", "budget"],
    ]);
  });

  test("an always card's text reaches, as the scene's always-included entries do", async () => {
    const book = await lorebook(chain("context: always"));
    expect(verdicts(await book.recall(["nobody"]))).toEqual(["Ann chosen always", "Ben chosen reached"]);
  });

  test("a card asked for by id but not named does not reach (a pick brings the card, not its neighbours)", async () => {
    const book = await lorebook(chain());
    const result = await book.recall(["nobody"], { explicit: new Set(["people/Ann"]) });
    expect(verdicts(result)).toEqual(["Ann chosen explicit"]);
  });

  test("a card the person named is not also reached", async () => {
    const book = await lorebook(chain());
    expect(verdicts(await book.recall(["Ann and Ben"]))).toEqual([
      "Ann chosen named",
      "Ben chosen named",
      "Cy chosen reached",
    ]);
  });

  test("a reached card cannot join a group the named cards already filled", async () => {
    const book = await lorebook(chain("group: pets", "group: pets\ngroup_override: true"));
    expect(verdictOf(await book.recall(["Ann"]), "Ben")).toBe("Ben vetoed/group reached");
  });
});

describe("delay_until_recursion named by the person", () => {
  test("held when no reach pass runs (nothing else fired, or reach: named)", async () => {
    const book = await lorebook(chain("", "delay_until_recursion: true"));
    expect(verdicts(await book.recall(["Ben"]))).toEqual(["Ben vetoed/recursion_only named"]);
    expect(verdictOf(await book.recall(["Zed and Ben"], { reach: "named" }), "Ben")).toBe(
      "Ben vetoed/recursion_only named",
    );
  });

  test("released when the reach pass runs, as SillyTavern's recursive pass re-reads the chat", async () => {
    const book = await lorebook([...chain("", "delay_until_recursion: true"), person("Zed")]);
    expect(verdictOf(await book.recall(["Zed and Ben"]), "Ben")).toBe("Ben chosen named");
  });

  test("never released when it also has exclude_recursion", async () => {
    const book = await lorebook([
      ...chain("", "delay_until_recursion: true\nexclude_recursion: true"),
      person("Zed"),
    ]);
    expect(verdictOf(await book.recall(["Zed and Ben"]), "Ben")).toBe("Ben vetoed/recursion_only named");
  });
});
