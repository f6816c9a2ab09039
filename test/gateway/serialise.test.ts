/**
 * A large rewritten body is written in steps (src/gateway/_serialise.ts): the bytes are exactly those
 * of JSON.stringify, whatever the body holds, and others get a turn after every step.
 */
import { describe, expect, test } from "bun:test";
import type { Json } from "../../src/gateway/_chat.ts";
import { STEP, serialiseInSteps } from "../../src/gateway/_serialise.ts";

/** The text written, and how many times others were given a turn. */
async function written(value: unknown): Promise<{ text: string; pauses: number }> {
  let pauses = 0;
  const blob = await serialiseInSteps(value as Json, async () => {
    pauses++;
  });
  return { text: await blob.text(), pauses };
}

const emoji = "😭";
/** A string with a surrogate pair across the first step's end. */
const pairAcrossStep = `${"a".repeat(STEP - 1)}${emoji}${"b".repeat(10)}`;

describe("a body written in steps", () => {
  test.each<[string, unknown]>([
    ["a plain chat", { model: "m", messages: [{ role: "user", content: "hi" }], stream: true }],
    [
      "numbers JSON writes its own way",
      { a: -0, b: 1e21, c: 0.1, d: Number.NaN, e: Infinity, f: [Number.NaN] },
    ],
    ["fields an edit left unset", { a: undefined, b: 1, c: [undefined, 2], d: { e: undefined } }],
    ["escapes, quotes and controls", { 'k"ey\n': 'a "quoted"\\ line\n\t\u0001 ✓ 我' }],
    ["lone surrogates", { a: "\ud800", b: "x\udc00y" }],
    ["empty containers", { a: {}, b: [], c: "", d: [[], [{}]] }],
    ["integer-like keys, which come first", { b: 1, 2: "two", a: 3, 1: "one" }],
    ["a string longer than a step, with a surrogate pair across the step's end", { content: pairAcrossStep }],
    [
      "a 5 MB message after a block put in front of it",
      { messages: [{ content: `block\n\n${"words — ".repeat(640_000)}` }] },
    ],
    ["many small values", { parts: Array.from({ length: 200_000 }, (_, i) => ({ i, t: `p${i}` })) }],
  ])("%s: the same bytes as JSON.stringify", async (_name, value) => {
    expect((await written(value)).text).toBe(JSON.stringify(value));
  });

  test("a string longer than a step is never cut inside a surrogate pair", async () => {
    const { text } = await written({ content: pairAcrossStep });
    expect(text).not.toContain("\\ud83d");
    expect(text).toContain(emoji);
  });

  test("others get a turn after every step written: one per megabyte of a long message, in steps of at most one", async () => {
    const chars = 12 * STEP;
    const { pauses } = await written({ messages: [{ role: "user", content: "x".repeat(chars) }] });
    expect(pauses).toBe(12);
  });

  test("a body of many small values pauses as often as one long string of the same size", async () => {
    const value = { parts: Array.from({ length: 300_000 }, (_, i) => `part ${i} `.padEnd(32, ".")) };
    const size = JSON.stringify(value).length;
    const { pauses } = await written(value);
    expect(pauses).toBe(Math.floor(size / STEP));
  });
});
