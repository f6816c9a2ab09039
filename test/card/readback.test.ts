// The read-back check (_readback.ts) refuses a text exactly when what it reads differs from what was
// meant, key by key as node's isDeepStrictEqual sees the values, and names the first key that differs.
import { describe, expect, test } from "bun:test";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { readFrontmatter, readPlainFrontmatter } from "../../src/card/_frontmatter.ts";
import { assertReadsBack } from "../../src/card/_readback.ts";
import { serializeCard } from "../../src/card/index.ts";
import type { LoreError } from "../../src/errors.ts";

const SCALAR = fc.oneof(
  fc.constantFrom("a", "b", "", "1", 1, 2, 0, -0, 1.5, NaN, true, false, null),
  fc.string({ maxLength: 3 }),
);
const VALUE: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 4, arbitrary: SCALAR },
    { weight: 2, arbitrary: fc.array(tie("value"), { maxLength: 3 }) },
    { weight: 2, arbitrary: fc.dictionary(fc.constantFrom("a", "b", "c"), tie("value"), { maxKeys: 3 }) },
  ),
})).value;
const DATA = fc.dictionary(fc.constantFrom("title", "st", "order", "x"), VALUE, { maxKeys: 4 });

function refusal(text: string, data: Record<string, unknown>): string | undefined {
  try {
    assertReadsBack(text, { data });
    return undefined;
  } catch (err) {
    expect((err as LoreError).code).toBe("invalid_input");
    return (err as LoreError & { data: { key: string } }).data.key;
  }
}

describe("the read-back check", () => {
  test("refuses exactly the data that differs from what the text reads as", () => {
    let refused = 0;
    fc.assert(
      fc.property(DATA, DATA, fc.boolean(), (written, other, itself) => {
        let text: string;
        try {
          text = serializeCard({ frontmatter: written, body: "" });
        } catch {
          return; // refused already: nothing to read back
        }
        const read = (readPlainFrontmatter(text) ?? readFrontmatter(text)).data;
        const meant = itself ? structuredClone(read) : other;
        const key = refusal(text, meant);
        const keys = [...new Set([...Object.keys(read), ...Object.keys(meant)])];
        const same = keys.every(
          (k) => Object.hasOwn(read, k) && Object.hasOwn(meant, k) && isDeepStrictEqual(read[k], meant[k]),
        );
        expect(key === undefined).toBe(same);
        if (key !== undefined) {
          refused += 1;
          expect(
            Object.hasOwn(read, key) && Object.hasOwn(meant, key) && isDeepStrictEqual(read[key], meant[key]),
          ).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
    expect(refused).toBeGreaterThan(300);
  });

  test.each<[string, string, unknown, unknown]>([
    ["0 from -0", "0", 0, -0],
    ["a list from a mapping of its indexes", "[a]", ["a"], { 0: "a" }],
    ["a list from a longer one", "[a]", ["a"], ["a", "b"]],
    ["null in a list from a hole", "[null]", [null], new Array(1)],
    ["null in a list from undefined", "[null]", [null], [undefined]],
    ["a nested value from another", "\n  a: [1, x]", { a: [1, "x"] }, { a: [1, "y"] }],
    [
      "a mapping from one with another prototype",
      "\n  a: 1",
      { a: 1 },
      Object.assign(Object.create(null), { a: 1 }),
    ],
  ])("tells %s", (_name, written, equal, different) => {
    const text = `---\nx: ${written}\n---\n`;
    expect(refusal(text, { x: equal })).toBeUndefined();
    expect(refusal(text, { x: different })).toBe("x");
  });

  test("names the first differing key in the text's order, then a key only the writer meant", () => {
    const text = "---\na: 1\nb: 2\n---\n";
    expect(refusal(text, { b: 3, a: 0 })).toBe("a");
    expect(refusal(text, { a: 1, b: 2, c: 3 })).toBe("c");
    expect(refusal(text, { a: 1 })).toBe("b");
    expect(refusal(text, { a: 1, b: 2 })).toBeUndefined();
  });
});
