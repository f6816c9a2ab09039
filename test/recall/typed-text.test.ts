/**
 * What the person typed: client wrappers out, the same result as the obvious regex, in linear time
 * (a 2 MB message of unclosed tags took 54 s through the gateway with the regex).
 */
import { describe, expect, test } from "bun:test";
import { typedText } from "../../src/recall/typed-text.ts";
import { expectLinear } from "../support/growth.ts";

describe("typedText", () => {
  test.each([
    ["a plain prompt", "  the friday deploy  ", "the friday deploy"],
    ["a closed reminder", "<system-reminder>CLAUDE.md</system-reminder>\nhi", "hi"],
    ["an unclosed reminder", "<system-reminder> is a tag; hi", "<system-reminder> is a tag; hi"],
    [
      "a reminder closed by another tag's closer",
      "<system-reminder>x</user_instructions> hi",
      "<system-reminder>x</user_instructions> hi",
    ],
    [
      "an unclosed one before a closed pair",
      "<environment_context> a <system-reminder>b</system-reminder> c",
      "<environment_context> a  c",
    ],
    ["only bookkeeping", "<command-name>/clear</command-name>", ""],
  ])("%s", (_name, input, expected) => {
    expect(typedText(input)).toBe(expected);
  });

  test("a message full of unclosed wrapper tags costs linear time", async () => {
    const text = (tags: number) => `${"<system-reminder> ".repeat(tags)}friday`;
    expect(typedText(text(120_000))).toBe(text(120_000).trim()); // 2 MB
    await expectLinear((tags) => typedText(text(tags)), 7_500, 120_000);
  });
});
