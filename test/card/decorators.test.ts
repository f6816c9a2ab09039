// V3 decorators (card spec §9) read into a card's rules, with the readings the README lists.
import { describe, expect, test } from "bun:test";
import { NOT_APPLICABLE, type RuleChanges, readDecorators, splitDecorators } from "../../src/card/index.ts";

describe("the leading block of an entry's content", () => {
  test.each([
    ["@@depth 4\n@@activate\nThe text.", ["@@depth 4", "@@activate"], "The text."],
    ["@@depth 4\r\n@@activate\r\nThe text.\r\n", ["@@depth 4", "@@activate"], "The text.\r\n"],
    ["@@depth 4  \nText", ["@@depth 4"], "Text"],
    ["@@activate", ["@@activate"], ""],
    ["@@activate\n", ["@@activate"], ""],
    ["Text first\n@@activate\n", [], "Text first\n@@activate\n"],
    ["@@depth 4\n\n@@activate\nText", ["@@depth 4"], "\n@@activate\nText"],
    [" @@activate\nText", [], " @@activate\nText"],
    ["", [], ""],
  ])("%j splits into its decorators and the rest, byte for byte", (content, decorators, rest) => {
    expect(splitDecorators(content)).toEqual({ decorators, rest });
  });
});

const read = (lines: string) => readDecorators(lines);

describe("each decorator and its reading", () => {
  test.each<[string, string, RuleChanges]>([
    ["@@activate is always", "@@activate", { policy: "always" }],
    ["@@dont_activate is never", "@@dont_activate", { policy: "never" }],
    ["@@activate beats @@dont_activate after it", "@@activate\n@@dont_activate", { policy: "always" }],
    ["@@activate beats @@dont_activate before it", "@@dont_activate\n@@activate", { policy: "always" }],
    ["@@activate_only_after N", "@@activate_only_after 3", { activateOnlyAfter: 3 }],
    ["@@activate_only_every N", "@@activate_only_every 2", { activateOnlyEvery: 2 }],
    ["@@keep_activate_after_match", "@@keep_activate_after_match", { keepAfterMatch: true }],
    ["@@dont_activate_after_match", "@@dont_activate_after_match", { dontAfterMatch: true }],
    ["@@depth N is N messages back", "@@depth 4", { placement: { position: "at_depth", depth: 4 } }],
    ["@@depth 0 is the newest place", "@@depth 0", { placement: { position: "at_depth", depth: 0 } }],
    ["@@role", "@@role assistant", { placement: { role: "assistant" } }],
    ["@@position, a spec place", "@@position after_desc", { placement: { position: "after_desc" } }],
    ["@@position, a SillyTavern place", "@@position an_bottom", { placement: { position: "an_bottom" } }],
    [
      "@@position wins over @@depth",
      "@@depth 4\n@@position scenario",
      { placement: { position: "scenario" } },
    ],
    [
      "@@position at_depth keeps @@depth's number",
      "@@position at_depth\n@@depth 2",
      { placement: { position: "at_depth", depth: 2 } },
    ],
    [
      "@@depth and @@role together",
      "@@depth 1\n@@role user",
      { placement: { position: "at_depth", depth: 1, role: "user" } },
    ],
    ["@@scan_depth N is the window in messages", "@@scan_depth 5", { scanMessages: 5 }],
    ["@@exclude_keys", "@@exclude_keys spoiler, ending", { excludeKeys: ["spoiler", "ending"] }],
    ["@@additional_keys is one AND-group", "@@additional_keys a,b", { additionalKeys: [["a", "b"]] }],
    [
      "@@additional_keys accumulates, one group a line",
      "@@additional_keys a,b\n@@additional_keys c",
      { additionalKeys: [["a", "b"], ["c"]] },
    ],
    [
      "the first of two duplicates wins",
      "@@depth 4\n@@depth 9",
      { placement: { position: "at_depth", depth: 4 } },
    ],
    ["the first @@exclude_keys wins", "@@exclude_keys a\n@@exclude_keys b", { excludeKeys: ["a"] }],
    [
      "names are read in any case",
      "@@Activate\n@@ROLE System",
      { policy: "always", placement: { role: "system" } },
    ],
    ["a flag's value is ignored", "@@activate now", { policy: "always" }],
    [
      "CRLF line endings",
      "@@depth 2\r\n@@role user\r\n",
      { placement: { position: "at_depth", depth: 2, role: "user" } },
    ],
  ])("%s", (_name, lines, changes) => {
    const got = read(lines);
    expect(got.warnings).toEqual([]);
    expect(got.changes).toEqual(changes);
  });

  test("a list of lines reads like the same lines in one block", () => {
    expect(readDecorators(["@@depth 4", "@@activate"])).toEqual(read("@@depth 4\n@@activate"));
  });
});

describe("fallbacks", () => {
  test.each<[string, string, RuleChanges, string[]]>([
    [
      "an unknown decorator falls to its fallback",
      "@@risu_only 1\n@@@depth 3",
      { placement: { position: "at_depth", depth: 3 } },
      [],
    ],
    [
      "fallbacks are tried in order",
      "@@risu_only\n@@@other_app\n@@@activate\n@@@dont_activate",
      { policy: "always" },
      [],
    ],
    [
      "an invalid value falls to the fallback, with a warning",
      "@@depth far\n@@@depth 2",
      { placement: { position: "at_depth", depth: 2 } },
      ['decorator "@@depth far" needs a whole number ≥ 0; ignored'],
    ],
    [
      "a usable decorator skips its fallbacks",
      "@@depth 1\n@@@depth 7",
      { placement: { position: "at_depth", depth: 1 } },
      [],
    ],
    [
      "no usable fallback: ignored with a warning",
      "@@risu_only\n@@@other_app",
      {},
      ['decorator "@@risu_only" is not a known decorator and none of its @@@ fallbacks is either; ignored'],
    ],
    [
      "an unknown decorator without fallbacks is ignored with a warning",
      "@@frobnicate 3\n@@activate",
      { policy: "always" },
      ['decorator "@@frobnicate 3" is not a known decorator; ignored'],
    ],
    [
      "a fallback with no decorator before it is ignored",
      "@@@activate",
      {},
      ['decorator "@@@activate" is a @@@ fallback with no decorator before it; ignored'],
    ],
    [
      "a duplicate's fallbacks are not consulted",
      "@@depth 1\n@@depth 2\n@@@role user",
      { placement: { position: "at_depth", depth: 1 } },
      [],
    ],
  ])("%s", (_name, lines, changes, warnings) => {
    const got = read(lines);
    expect(got.changes).toEqual(changes);
    expect(got.warnings).toEqual(warnings);
  });
});

describe("invalid values", () => {
  test.each([
    ["@@depth -1", "needs a whole number ≥ 0"],
    ["@@depth 1.5", "needs a whole number ≥ 0"],
    ["@@activate_only_every 0", "needs a whole number ≥ 1"],
    ["@@activate_only_after", "needs a whole number ≥ 0"],
    ["@@scan_depth x", "needs a whole number ≥ 0"],
    ["@@role narrator", "needs system, user, assistant"],
    ["@@position middle", "needs a position name"],
    ["@@additional_keys ,", "needs one or more comma-separated words"],
    ["@@exclude_keys", "needs one or more comma-separated words"],
  ])("%s is ignored with a warning", (line, why) => {
    const got = read(line);
    expect(got.changes).toEqual({});
    expect(got.warnings).toEqual([`decorator "${line}" ${why}; ignored`]);
  });

  test("a line after the leading block is ignored with a warning, and so is everything after it", () => {
    const got = readDecorators(["@@depth 4", "not a decorator", "@@activate"]);
    expect(got.changes).toEqual({ placement: { position: "at_depth", depth: 4 } });
    expect(got.warnings).toEqual([
      'decorators: "not a decorator" is not a @@ line, so it and every line after it are ignored',
    ]);
  });

  test("an @@ line that names nothing is ignored with a warning", () => {
    expect(read("@@ depth 4").warnings).toEqual(['decorator "@@ depth 4" is not a @@name line; ignored']);
  });
});

describe("recognised but not applicable", () => {
  test.each(NOT_APPLICABLE.map((name) => [name]))(
    "@@%s is kept aside, without a warning or a fallback",
    (name) => {
      const got = read(`@@${name} 1\n@@@activate`);
      expect(got).toEqual({ changes: {}, warnings: [], ignored: [name] });
    },
  );
});
