// Words past a command's positionals: the unquoted rest of a message for the commands whose last
// positional is text a person types (`try I borrowed Maggie's ladder`), and a usage error for any other
// command, which used to drop them without a word (`history Anna 2` showed Anna's list, not version 2).
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import type { ArgsDef } from "citty";
import { historyCommand } from "../../src/cli/history.ts";
import { withTextJoined } from "../../src/cli/index.ts";
import { listCommand } from "../../src/cli/list.ts";
import { tryCommand } from "../../src/cli/try.ts";
import { updateCommand } from "../../src/cli/update.ts";
import { tempDir } from "../support/vault.ts";

const ARGS: Record<string, ArgsDef> = {
  try: tryCommand.args as ArgsDef,
  update: updateCommand.args as ArgsDef,
  history: historyCommand.args as ArgsDef,
  list: listCommand.args as ArgsDef,
};

describe("the words past a command's positionals", () => {
  test.each([
    [
      "one quoted message is left as it is",
      "try",
      ["I borrowed Maggie's ladder"],
      ["I borrowed Maggie's ladder"],
    ],
    [
      "an unquoted message is one message",
      "try",
      ["I", "borrowed", "Maggie's", "ladder"],
      ["I borrowed Maggie's ladder"],
    ],
    [
      "flags among its words keep their values",
      "try",
      ["I", "borrowed", "--budget", "100", "the", "ladder", "--json"],
      ["I borrowed the ladder", "--budget", "100", "--json"],
    ],
    [
      "after --, words that look like flags are the message",
      "try",
      ["--", "-x", "marks", "it"],
      ["--", "-x marks it"],
    ],
    [
      "a section's new text, unquoted, is that text",
      "update",
      ["Alice", "recent", "Moved", "to", "Lyon"],
      ["Alice", "recent", "Moved to Lyon"],
    ],
    [
      "a command that takes as many words as given is left as it is",
      "history",
      ["Anna", "--version", "2"],
      ["Anna", "--version", "2"],
    ],
  ])("%s", (_name, command, argv, out) => {
    expect(withTextJoined(command, ARGS[command]!, argv)).toEqual(out);
  });

  test.each([
    [
      "a word too many is refused, named, with what the command takes",
      "history",
      ["Anna", "2"],
      'unexpected argument "2" (history takes NAME)',
    ],
    [
      "a command that takes no words says so",
      "list",
      ["people"],
      'unexpected argument "people" (list takes no words but flags)',
    ],
  ])("%s", (_name, command, argv, message) => {
    expect(() => withTextJoined(command, ARGS[command]!, argv)).toThrow(message);
  });
});

test("the binary's try fires a card named in an unquoted sentence, and history refuses a stray word (exit 2)", () => {
  const vault = tempDir();
  try {
    fs.mkdirSync(path.join(vault, "people"));
    fs.writeFileSync(
      path.join(vault, "people", "Maggie.md"),
      "---\nkeywords: [maggie]\n---\nThe neighbour.\n",
    );
    const main = path.resolve(import.meta.dir, "../../src/main.ts");
    const run = (...args: string[]) =>
      Bun.spawnSync([process.execPath, main, ...args, "--vault", vault], { stdout: "pipe", stderr: "pipe" });
    const fired = run("try", "I", "borrowed", "Maggie's", "ladder");
    expect(fired.exitCode).toBe(0);
    expect(fired.stdout.toString()).toContain("1. Maggie [people]");
    const stray = run("history", "Maggie", "2");
    expect(stray.exitCode).toBe(2);
    expect(stray.stderr.toString()).toBe('lorecards: unexpected argument "2" (history takes NAME)\n');
  } finally {
    fs.rmSync(vault, { recursive: true, force: true });
  }
});
