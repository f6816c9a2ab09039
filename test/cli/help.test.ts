// Every command's `--help`, as a person reads it when piped, held in snapshots (citty's way): a flag
// renamed, a default changed or a description reworded shows up here, in review, before a user meets
// it. Update them deliberately with `bun test test/cli/help.test.ts --update-snapshots`.
import { describe, expect, test } from "bun:test";
import { COMMAND_NAMES, helpText } from "../../src/cli/index.ts";

describe("--help", () => {
  test("lorecards --help lists every command", async () => {
    const text = await helpText();
    for (const name of COMMAND_NAMES) expect(text).toContain(name);
    expect(text).not.toMatch(/[ \t]$/m);
    expect(text).toMatchSnapshot();
  });

  test.each(COMMAND_NAMES)("lorecards %s --help", async (name) => {
    const text = await helpText(name);
    expect(text).not.toMatch(/\u001b\[/);
    // No line padded to the widest: a pipe gets no trailing spaces, and one longer description
    // elsewhere in the help leaves this snapshot alone.
    expect(text).not.toMatch(/[ \t]$/m);
    expect(text).toMatchSnapshot();
  });
});
