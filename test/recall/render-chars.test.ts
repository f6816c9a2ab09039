// A rendered card's size, which the budget weighs it by, is its characters as the spread of the string
// counts them, counted without making the array.
import { expect, test } from "bun:test";
import { codePointsOf } from "../../src/recall/stages/render.ts";

test.each([
  ["", "empty"],
  ["### Alice [people]\nworks at the bakery\n", "plain text"],
  ["王杰平是我的同事，住在北京。", "Chinese"],
  ["a 😀 b 👩‍👩‍👧 c", "surrogate pairs and joiners"],
  ["\ud83d", "a lone high surrogate"],
  ["x\ude00y", "a lone low surrogate"],
  ["\ude00\ud83d", "a low then a high surrogate"],
  ["end \ud83d", "a high surrogate at the end"],
  ["\ud83d\ud83d\ude00", "a high surrogate before a pair"],
])("%j (%s) counts as the spread does", (text) => {
  expect(codePointsOf(text)).toBe([...text].length);
});
