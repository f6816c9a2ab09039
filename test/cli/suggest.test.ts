// "Did you mean" for a mistyped command or flag (src/cli/_suggest.ts), and the examples under each
// command's help, every one of them a command that exists.
import { describe, expect, test } from "bun:test";
import { commandsWithExamples, withExamples } from "../../src/cli/_examples.ts";
import { closest, editDistance } from "../../src/cli/_suggest.ts";
import { COMMAND_NAMES } from "../../src/cli/index.ts";

const MAIN = new URL("../../src/main.ts", import.meta.url).pathname;

describe("did you mean", () => {
  test.each([
    ["tyr", "try"],
    ["imprt", "import"],
    ["exprot", "export"],
    ["histroy", "history"],
    ["gatway", "gateway"],
    ["restore-bakup", "restore-backup"],
    ["hepl", "help"],
  ])("%s is taken for %s", (typed, meant) => {
    expect(closest(typed, [...COMMAND_NAMES, "help"])).toBe(meant);
  });

  test.each([
    ["scan-dept", "scan-depth"],
    ["vualt", "vault"],
    ["jsno", "json"],
    ["budget-token", "budget-tokens"],
    ["show-contxt", "show-context"],
  ])("--%s is taken for --%s", (typed, meant) => {
    const flags = [
      "scan-depth",
      "vault",
      "json",
      "budget",
      "budget-tokens",
      "show-context",
      "seed",
      "char",
      "user",
    ];
    expect(closest(typed, flags)).toBe(meant);
  });

  test.each([
    ["show", "read"],
    ["ls", "list"],
    ["edit", "update"],
    ["rm", "archive"],
    ["search", "try"],
  ])("%s, another tool's name for it, is taken for %s", (typed, meant) => {
    const run = Bun.spawnSync([process.execPath, MAIN, typed, "x"], { stdout: "pipe", stderr: "pipe" });
    expect(run.exitCode).toBe(2);
    expect(run.stderr.toString()).toBe(
      `lorecards: unknown command "${typed}"; did you mean "${meant}"? (lorecards help lists them)\n`,
    );
  });

  test.each(["zzz", "deploy", "x", "lorecards"])("%s is like no command, and no guess is made", (typed) => {
    expect(closest(typed, [...COMMAND_NAMES, "help"])).toBeUndefined();
  });

  test.each([
    ["", "", 0],
    ["abc", "abc", 0],
    ["abc", "acb", 1],
    ["kitten", "sitting", 3],
  ])("the distance from %p to %p is %i", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });
});

describe("examples in the help", () => {
  test("every command has examples, and every example is of a command that exists", () => {
    expect(commandsWithExamples().sort()).toEqual([...COMMAND_NAMES].sort());
    for (const command of COMMAND_NAMES) {
      const section = withExamples("usage", command);
      expect(section).toStartWith("usage\n\nEXAMPLES\n");
      for (const line of section.split("\n").filter((l) => l.startsWith("  "))) {
        expect(line).toMatch(new RegExp(`lorecards ${command.replace("-", "\\-")}\\b`));
      }
    }
  });
});
