// The write checks (src/vet/) as tables: priority caps, trigger sanity, what refuses and what
// only warns, imports, and the `priority_caps` key of settings.yaml that configures them.
import { describe, expect, test } from "bun:test";
import { rulesWith } from "../../src/card/rules.ts";
import type { CardMeta } from "../../src/card/types.ts";
import { parseSettings } from "../../src/vault/index.ts";
import {
  checkImport,
  checkWrite,
  DEFAULT_PRIORITY_CAPS,
  genericTerm,
  refusalError,
  type WriteContext,
} from "../../src/vet/index.ts";
import { cardMeta } from "../support/card-meta.ts";

/** A people card whose one keyword is "<key> Martin". */
const meta = (key: string, extra: Partial<CardMeta> = {}) =>
  cardMeta(key, { keywords: [`${key} Martin`], ...extra });

/** `n` cards named `${prefix}1…` at `priority`. */
const many = (n: number, priority: number, prefix = "Held", extra: Partial<CardMeta> = {}) =>
  Array.from({ length: n }, (_, i) => meta(`${prefix}${i + 1}`, { priority, ...extra }));

const codesOf = (list: { code: string }[]) => list.map((w) => w.code);

describe("priority caps", () => {
  test.each<[string, CardMeta, WriteContext, string[]]>([
    ["a new card at the default priority is never capped", meta("New"), { others: many(30, 0) }, []],
    [
      "a 6th card at priority 2 is refused",
      meta("New", { priority: 2 }),
      { others: many(5, 2) },
      ["priority_cap"],
    ],
    ["a 5th card at priority 2 is written", meta("New", { priority: 2 }), { others: many(4, 2) }, []],
    [
      "priority 2 or above is one band: a card at 9 counts against cards at 2 and 3",
      meta("New", { priority: 9 }),
      { others: [...many(3, 2), ...many(2, 3, "Top")] },
      ["priority_cap"],
    ],
    [
      "a 16th card at priority 1 is refused",
      meta("New", { priority: 1 }),
      { others: many(15, 1) },
      ["priority_cap"],
    ],
    [
      "cards above priority 1 do not count against its 15",
      meta("New", { priority: 1 }),
      { others: [...many(14, 1), ...many(5, 2, "Top")] },
      [],
    ],
    [
      "disabled cards hold no place",
      meta("New", { priority: 2 }),
      { others: many(5, 2, "Off", { enabled: false }) },
      [],
    ],
    [
      "a disabled card may be written into a full band",
      meta("New", { priority: 2, enabled: false }),
      { others: many(5, 2) },
      [],
    ],
    [
      "an update that keeps a card in its band is written even when the band is over its cap",
      meta("Held1", { priority: 3, keywords: ["a new keyword"] }),
      { before: meta("Held1", { priority: 2 }), others: many(9, 2) },
      [],
    ],
    [
      "an update raising a card into a full band is refused",
      meta("Mover", { priority: 2 }),
      { before: meta("Mover", { priority: 1 }), others: many(5, 2) },
      ["priority_cap"],
    ],
    [
      "an update switching a card back on in a full band is refused",
      meta("Sleeper", { priority: 2 }),
      { before: meta("Sleeper", { priority: 2, enabled: false }), others: many(5, 2) },
      ["priority_cap"],
    ],
    [
      "no caps (priority_caps: false) refuse nothing",
      meta("New", { priority: 2 }),
      { others: many(50, 2), caps: [] },
      [],
    ],
    [
      "custom caps: priority 10 or above holds one card",
      meta("New", { priority: 12 }),
      { others: many(1, 10), caps: [{ priority: 10, cap: 1 }] },
      ["priority_cap"],
    ],
    [
      "custom caps leave uncapped priorities alone",
      meta("New", { priority: 5 }),
      { others: many(20, 5), caps: [{ priority: 10, cap: 1 }] },
      [],
    ],
    [
      "a cap of 0 refuses the first card",
      meta("New", { priority: 4 }),
      { others: [], caps: [{ priority: 4, cap: 0 }] },
      ["priority_cap"],
    ],
  ])("%s", (_name, next, ctx, refusals) => {
    expect(codesOf(checkWrite(next, ctx).refusals)).toEqual(refusals);
  });

  test("the refusal names the band, the cap, where it is set and every card holding it", () => {
    const { refusals } = checkWrite(meta("New", { priority: 2 }), { others: many(5, 2) });
    expect(refusals[0]!.detail).toBe(
      "priority 2 or above is capped at 5 cards (settings.yaml priority_caps) and 5 cards hold it: " +
        "people/Held1, people/Held2, people/Held3, people/Held4, people/Held5; give this card a lower " +
        "priority, lower one of theirs, or raise the cap",
    );
    expect(checkWrite(meta("New", { priority: 1 }), { others: many(15, 1) }).refusals[0]!.detail).toStartWith(
      "priority 1 is capped at 15 cards",
    );
    const spread = [
      { priority: 10, cap: 1 },
      { priority: 3, cap: 0 },
    ];
    expect(
      checkWrite(meta("New", { priority: 4 }), { others: [], caps: spread }).refusals[0]!.detail,
    ).toStartWith(
      "priority 3 to 9 is capped at 0 cards (settings.yaml priority_caps) and no card may hold it",
    );
  });

  test("a cap refusal is a conflict (exit 4, HTTP 409); a card that can never fire is invalid input", () => {
    const cap = checkWrite(meta("New", { priority: 2 }), { others: many(5, 2) }).refusals;
    const err = refusalError(meta("New"), cap);
    expect([err.code, err.message]).toEqual(["conflict", `people/New was not written: ${cap[0]!.detail}`]);
    const silent = meta("???", { keywords: [], priority: 2 });
    const both = checkWrite(silent, { others: many(5, 2) }).refusals;
    expect(codesOf(both)).toEqual(["never_fires", "priority_cap"]);
    expect(refusalError(silent, both).code).toBe("invalid_input");
  });

  test("the defaults are 5 at priority 2 or above and 15 at priority 1", () => {
    expect(DEFAULT_PRIORITY_CAPS).toEqual([
      { priority: 2, cap: 5 },
      { priority: 1, cap: 15 },
    ]);
  });
});

describe("trigger sanity", () => {
  const others = [meta("Bob"), meta("the corner cafe", { kind: "place", path: "places/the corner cafe.md" })];
  test.each<[string, Partial<CardMeta>, string[]]>([
    ["specific keywords say nothing", { keywords: ["Alice Martin", "payments team"] }, []],
    ["no keywords or aliases: it fires only on its title", { keywords: [] }, ["no_keywords"]],
    ["an alias is enough", { keywords: [], aliases: ["Allie Martin"] }, []],
    ["a card that is always in needs no words", { keywords: [], rules: rulesWith({ policy: "always" }) }, []],
    ["a manual card needs no words", { keywords: [], rules: rulesWith({ policy: "manual" }) }, []],
    ["two keywords typed as one with or", { keywords: ["Alice or Allie"] }, ["joined_terms"]],
    ["two keywords typed as one with and, in any case", { keywords: ["Paris AND Lyon"] }, ["joined_terms"]],
    ["or inside a word is no join", { keywords: ["Orlando", "Alice Ordway"] }, []],
    ["a regular expression may say or", { keywords: ["/Alice or Allie/i"] }, []],
    ["a common word fires on ordinary text", { keywords: ["love", "Alice Martin"] }, ["generic_keyword"]],
    ["two letters match inside many words", { keywords: ["Al", "Alice Martin"] }, ["generic_keyword"]],
    ["a term inside everyday words", { keywords: ["ally", "Alice Martin"] }, ["generic_keyword"]],
    [
      "whole_words stops the everyday-word warning",
      { keywords: ["ally", "Alice Martin"], rules: rulesWith({ wholeWords: true }) },
      [],
    ],
    ["a keyword that is another card's title", { keywords: ["bob", "Alice Martin"] }, ["another_title"]],
    ["an alias that is another card's title", { aliases: ["The Corner Cafe"] }, ["another_title"]],
    [
      "a title another card has too",
      { key: "Bob 2", title: "Bob", keywords: ["Bob Dylan"] },
      ["another_title"],
    ],
    [
      "a card that fires only when asked for is not warned about",
      { keywords: ["love"], rules: rulesWith({ policy: "manual" }) },
      [],
    ],
  ])("%s", (_name, extra, warnings) => {
    const verdict = checkWrite(meta("Alice", extra), { others });
    expect(verdict.refusals).toEqual([]);
    expect(codesOf(verdict.warnings)).toEqual(warnings);
  });

  test.each([
    ["sam", "same"],
    ["ann", "cannot"],
    ["ben", "benefit"],
    ["dan", "dance"],
    ["max", "maximum"],
    ["tom", "tomorrow"],
  ])("the short name %p is found inside an everyday word, %p, unless whole words are asked", (name, word) => {
    // A new user's team of short names fired on "Can you do the same sample for the job?" and the
    // like, and check named three of eight.
    expect(genericTerm(name, rulesWith({}))).toBe(
      `"${name}" matches inside everyday words such as "${word}" (whole_words: true stops that)`,
    );
    expect(genericTerm(name, rulesWith({ wholeWords: true }))).toBeNull();
  });

  test("a title that is another card's keyword or alias is said when it is written, naming that card", () => {
    // A new user's `new people Sammy`, Sammy being Sam's alias, was created with no warning; each
    // later update of Sam warned instead.
    const sam = meta("Sam", { aliases: ["Sammy"] });
    const { warnings } = checkWrite(meta("Sammy"), { others: [sam] });
    expect(warnings).toEqual([
      {
        code: "another_title",
        term: "Sammy",
        detail: `"Sammy" is a keyword or alias of ${sam.kind}/Sam: both fire on it and compete for the budget`,
      },
    ]);
    expect(checkWrite(meta("Samuel"), { others: [sam] }).warnings).toEqual([]);
  });

  test("each warning names its term and says what to do", () => {
    const { warnings } = checkWrite(meta("Alice", { keywords: ["Alice or Allie", "bob"] }), { others });
    expect(warnings).toEqual([
      {
        code: "joined_terms",
        term: "Alice or Allie",
        detail:
          '"Alice or Allie" reads as two keywords typed as one: it fires only on the whole phrase, never on ' +
          'either part; give each its own keyword (a name with "or" in it is fine as it is)',
      },
      {
        code: "another_title",
        term: "bob",
        detail: '"bob" is the title of people/Bob: this card comes in whenever that one is named',
      },
    ]);
  });

  test("the card itself is never another card: an update of Bob does not warn about Bob's title", () => {
    expect(checkWrite(meta("Bob", { keywords: ["Bob"] }), { before: meta("Bob"), others }).warnings).toEqual(
      [],
    );
  });

  test.each<[string, Partial<CardMeta>]>([
    ["no term with a letter or digit", { title: "???", keywords: ["!!!"] }],
    [
      "a word both required and forbidden",
      { secondary: { all: ["deploy"], any: [], not: ["Deploy"], notAll: [] } },
    ],
  ])("a new card that could never fire is refused: %s", (_name, extra) => {
    const { refusals } = checkWrite(meta("Alice", extra), { others: [] });
    expect(codesOf(refusals)).toEqual(["never_fires"]);
    expect(refusals[0]!.detail).toStartWith("it can never fire: ");
  });

  test("an update that leaves a card as silent as it was is written, with the reason as a warning", () => {
    const silent = { title: "???", keywords: ["!!!"] };
    const verdict = checkWrite(meta("Q", { ...silent, firstLine: "new text" }), {
      before: meta("Q", silent),
      others: [],
    });
    expect(verdict.refusals).toEqual([]);
    expect(codesOf(verdict.warnings)).toEqual(["never_fires"]);
  });

  test("an update that silences a card that used to fire is refused", () => {
    const next = meta("Q", { title: "???", keywords: ["!!!"] });
    expect(codesOf(checkWrite(next, { before: meta("Q"), others: [] }).refusals)).toEqual(["never_fires"]);
  });
});

describe("imports", () => {
  test("an import refuses nothing: a card that can never fire and an overfilled cap come back as warnings", () => {
    const vault = many(4, 2);
    const written = [
      ...many(3, 2, "Imported"),
      meta("Silent", { title: "???", keywords: ["!!!"] }),
      meta("Joined", { keywords: ["Alice or Allie"] }),
    ];
    const checks = checkImport(written, [...vault, ...written]);
    expect(checks.map((c) => `${c.card} ${c.code}`)).toEqual([
      "people/Silent never_fires",
      "people/Joined joined_terms",
      "null priority_cap",
    ]);
    expect(checks[2]!.detail).toStartWith(
      "priority 2 or above holds 7 cards, over its cap of 5 (settings.yaml priority_caps): people/Held1,",
    );
  });

  test("a band already over its cap that the import did not add to is not reported", () => {
    const vault = many(9, 2);
    const written = [meta("Plain")];
    expect(checkImport(written, [...vault, ...written])).toEqual([]);
  });

  test("an imported card is not another card's namesake to itself, but is to a second copy", () => {
    const a = meta("Harbor", { keywords: ["Harbor Master"] });
    const b = meta("Harbor 2", { title: "Harbor", keywords: ["Harbor Master"] });
    expect(checkImport([a], [a])).toEqual([]);
    expect(checkImport([a, b], [a, b]).map((c) => `${c.card} ${c.code}`)).toEqual([
      "people/Harbor another_title",
      "people/Harbor 2 another_title",
    ]);
  });
});

describe("priority_caps in settings.yaml", () => {
  const warning =
    "settings.yaml: priority_caps must map whole priorities to whole counts ≥ 0, or be false; ignored";
  test.each<[string, string, unknown, string[]]>([
    [
      "a mapping, sorted highest first",
      "priority_caps:\n  1: 15\n  2: 3\n",
      [
        { priority: 2, cap: 3 },
        { priority: 1, cap: 15 },
      ],
      [],
    ],
    ["false turns the caps off", "priority_caps: false\n", [], []],
    ["an empty mapping turns them off too", "priority_caps: {}\n", [], []],
    ["left empty: the defaults", "priority_caps:\n", undefined, []],
    ["a name for a priority: ignored whole", "priority_caps: {top: 5, 1: 15}\n", undefined, [warning]],
    ["a negative count: ignored whole", "priority_caps: {2: -1}\n", undefined, [warning]],
    ["a list: ignored", "priority_caps: [5, 15]\n", undefined, [warning]],
  ])("%s", (_name, text, caps, warnings) => {
    const parsed = parseSettings(text);
    expect(parsed.settings.priorityCaps).toEqual(caps as never);
    expect(parsed.warnings).toEqual(warnings);
  });
});
