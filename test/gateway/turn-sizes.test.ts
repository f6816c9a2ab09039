/**
 * The sizes a gateway turn record keeps (_turn-sizes.ts), on a small conversation counted by hand:
 * system "sys" (3), messages "u1"/"a1"/"u2" (2 each), blocks of 10 characters plus the 2-character gap.
 */
import { describe, expect, test } from "bun:test";
import { type Edit, makeView } from "../../src/gateway/_chat.ts";
import { turnSizes } from "../../src/gateway/_turn-sizes.ts";

const raw = [
  { role: "user", content: "u1" },
  { role: "assistant", content: "a1" },
  { role: "user", content: "u2" },
];
const view = makeView(
  "sys",
  raw,
  raw.map((m) => ({ role: m.role, text: m.content })),
);
const block = (anchor: number, place: Edit["place"]): Edit => ({ anchor, place, text: "x".repeat(10) });

describe("turn sizes", () => {
  test.each([
    [
      "the first turn shares nothing",
      0,
      [],
      [block(0, "prefix")],
      { promptChars: 21, sharedChars: 0, cached: 0 },
    ],
    [
      "a later turn shares the previous request: system, messages through it, its replayed blocks",
      2,
      [block(0, "prefix"), block(0, "system")],
      [block(2, "prefix")],
      { promptChars: 45, sharedChars: 29, cached: 3 },
    ],
  ] as const)("%s", (_name, target, replayed, added, want) => {
    const sizes = turnSizes({ view, target, replayed, added });
    expect(sizes.promptChars).toBe(want.promptChars);
    expect(sizes.sharedChars).toBe(want.sharedChars);
    expect(sizes.counterfactual.cachedChars).toBe(want.cached);
  });
});
