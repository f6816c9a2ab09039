// The checker of the conformance suite judges the engine, so it is tested itself: each kind of
// expectation must catch the answers that break it.
import { describe, expect, test } from "bun:test";
import { type Case, type Expectation, expected, mismatches } from "./_cases.ts";

const table: [string, string[], Expectation, string[]][] = [
  ["an exact set is met by exactly those titles", ["A", "B"], { fires: ["B", "A"] }, []],
  ["an exact set reports a missing title", ["A"], { fires: ["A", "B"] }, ['missing "B"']],
  ["an exact set reports an extra title", ["A", "C"], { fires: ["A"] }, ['unexpected "C"']],
  ["an empty set is broken by any title", ["A"], { fires: [] }, ['unexpected "A"']],
  ["one of a group is met by one winner", ["K", "R"], { fires: ["K"], oneOf: [["R", "S"]] }, []],
  [
    "one of a group is broken by two winners",
    ["R", "S"],
    { oneOf: [["R", "S"]] },
    ['expected exactly one of ["R","S"], got ["R","S"]'],
  ],
  [
    "one of a group is broken by none",
    [],
    { oneOf: [["R", "S"]] },
    ['expected exactly one of ["R","S"], got []'],
  ],
  ["includes allows others beside", ["A", "Z"], { includes: ["A"] }, []],
  ["includes reports a missing title", ["Z"], { includes: ["A"] }, ['missing "A"']],
  ["excludes reports a present title", ["A"], { excludes: ["A"] }, ['unexpected "A"']],
];

describe("the conformance checker", () => {
  test.each(table)("%s", (_name, chosen, want, problems) => {
    expect(mismatches(chosen, want)).toEqual(problems);
  });

  test("a case that deliberately differs is held to our answer, not the judge's", () => {
    const c: Case = {
      name: "n",
      messages: [],
      why: "w",
      fires: ["A"],
      differs: { fires: ["B"], difference: "the title", why: "ours" },
    };
    expect(expected(c).fires).toEqual(["B"]);
    expect(expected({ ...c, differs: undefined }).fires).toEqual(["A"]);
  });
});
