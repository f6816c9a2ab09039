// Turns a person gives (`try --turns`, `/api/try`'s turns): one parser, each surface naming its field
// and raising its own error code.
import { describe, expect, test } from "bun:test";
import type { ErrorCode } from "../../src/errors.ts";
import { LoreError } from "../../src/errors.ts";
import { parseTurns } from "../../src/recall/index.ts";

const CLI = { name: "--turns", code: "usage" as ErrorCode };
const API = { name: "turns", code: "invalid_input" as ErrorCode };

describe("turns given by a person", () => {
  test.each([
    ["none", undefined, [{ role: "user", text: "now" }]],
    ["an empty list", [], [{ role: "user", text: "now" }]],
    [
      "earlier messages, oldest first",
      [
        { role: "user", text: "Alice said hi" },
        { role: "assistant", text: "Hello" },
      ],
      [
        { role: "user", text: "Alice said hi" },
        { role: "assistant", text: "Hello" },
        { role: "user", text: "now" },
      ],
    ],
  ])("%s, then the current message", (_what, earlier, turns) => {
    expect(parseTurns(earlier, "now", CLI)).toEqual(turns as never);
    expect(parseTurns(earlier, "now", API)).toEqual(turns as never);
  });

  test.each([
    ["not a list", "no", "must be a list of {role, text}"],
    ["a role nobody has", [{ role: "robot", text: "y" }], '[0] must be {"role": "user"|"assistant"'],
    ["a system turn", [{ role: "system", text: "y" }], '[0] must be {"role": "user"|"assistant"'],
    ["text that is not a string", [{ role: "user", text: 3 }], "[0] must be"],
    ["an entry that is not an object", [null], "[0] must be"],
  ])(
    "%s is refused, naming the field as each surface calls it, with its own code",
    (_what, earlier, message) => {
      for (const input of [CLI, API]) {
        let caught: unknown;
        try {
          parseTurns(earlier, "now", input);
        } catch (err) {
          caught = err;
        }
        expect(caught).toBeInstanceOf(LoreError);
        expect((caught as LoreError).code).toBe(input.code);
        expect((caught as LoreError).message).toStartWith(input.name);
        expect((caught as LoreError).message).toContain(message);
      }
    },
  );
});
