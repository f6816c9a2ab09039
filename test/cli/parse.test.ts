// The parser a cold start uses instead of citty (src/cli/_parse.ts) reads every argv it accepts exactly
// as citty does, and leaves to citty what it does not accept.
import { describe, expect, test } from "bun:test";
import { type ArgsDef, parseArgs } from "citty";
import fc from "fast-check";
import { simpleArgs } from "../../src/cli/_parse.ts";
import { exportCommand } from "../../src/cli/export.ts";
import { hookCommand } from "../../src/cli/hook.ts";
import { tryCommand } from "../../src/cli/try.ts";

const COMMANDS: [string, ArgsDef][] = [
  ["hook", hookCommand.args as ArgsDef],
  ["try", tryCommand.args as ArgsDef],
  ["export", exportCommand.args as ArgsDef],
];

/** Tokens that exercise every rule: flags of each type, inline values, negations, dashes, enums. */
const TOKENS = [
  ..."--json --no-json --json=false --log --no-log --no-log=1 --show-context --no-show-context".split(" "),
  ..."--budget --budget=5 --budget= --no-budget --scan-depth=0 --reach --reach=named --reach=bogus".split(
    " ",
  ),
  ..."--vault --vault=/v --turns --seed --with --char --user= --format --format=st --card --unknown".split(
    " ",
  ),
  ..."5 -5 0 named one-hop bogus st docx hello x=y /tmp/v Alice,Bob [] -- - -x -h".split(" "),
  "",
  "two words",
];

/** What citty's parser gives for each argument the command defines, or "throws". */
function cittyValues(def: ArgsDef, argv: string[]): Record<string, unknown> | "throws" {
  try {
    const parsed = parseArgs(argv, def);
    return Object.fromEntries(Object.keys(def).map((k) => [k, parsed[k]]));
  } catch {
    return "throws";
  }
}

describe("the cold-start argument parser", () => {
  test.each(COMMANDS)("agrees with citty on every argv it accepts (%s)", (_name, def) => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TOKENS), { maxLength: 6 }), (argv) => {
        const ours = simpleArgs(def, argv);
        if (ours === undefined) return;
        accepted++;
        expect(cittyValues(def, argv)).toEqual(ours);
      }),
      { numRuns: 3000 },
    );
    // The property says something only if many argv were accepted.
    expect(accepted).toBeGreaterThan(100);
  });

  test("reads what Claude Code and scripts write", () => {
    const def = hookCommand.args as ArgsDef;
    expect(simpleArgs(def, ["--vault", "/v", "--no-log", "--budget=500"])).toMatchObject({
      vault: "/v",
      log: false,
      budget: "500",
      "scan-depth": "3",
    });
    expect(
      simpleArgs(tryCommand.args as ArgsDef, ["hello there", "--json", "--reach", "named"]),
    ).toMatchObject({
      sentence: "hello there",
      json: true,
      reach: "named",
    });
  });

  test.each([
    [["--budget", "1", "--budget", "2"], "a repeated flag"],
    [["--log", "--no-log"], "a flag and its negation"],
    [["--budget", "-5"], "a value that starts with a dash"],
    [["--json", "--", "--log"], "--"],
    [["-h"], "a short flag"],
    [["--reach", "bogus"], "a value outside the enum"],
    [["--log=false"], "a boolean given a value"],
    [["stray"], "a positional the command does not take"],
  ])("leaves %p to citty (%s)", (argv) => {
    expect(simpleArgs(hookCommand.args as ArgsDef, argv)).toBeUndefined();
  });

  test("leaves a missing required positional to citty, which names it", () => {
    expect(simpleArgs(tryCommand.args as ArgsDef, ["--json"])).toBeUndefined();
    expect(cittyValues(tryCommand.args as ArgsDef, ["--json"])).toBe("throws");
  });
});
