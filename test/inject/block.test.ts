import { describe, expect, test } from "bun:test";
import { hasBlock, markersFromSecret, stripBlocks, wrapBlock } from "../../src/inject/index.ts";

const ours = markersFromSecret("secret-one");
const theirs = markersFromSecret("secret-two");
const block = wrapBlock("A memory surfaces:\n\n### Alice [people]\nThe sister.\n", ours);

describe("markers", () => {
  test("the same secret always gives the same markers, a different secret different ones", () => {
    expect(markersFromSecret("secret-one")).toEqual(ours);
    expect(theirs.tag).not.toBe(ours.tag);
    expect(ours.open).toBe(`<!-- lorecards:${ours.tag} -->`);
    expect(ours.close).toBe(`<!-- /lorecards:${ours.tag} -->`);
  });

  test("the tag does not reveal the secret", () => {
    expect(ours.open).not.toContain("secret-one");
  });
});

describe("wrapBlock", () => {
  test("frames the context between our markers, byte for byte the same every time", () => {
    expect(block).toBe(`${ours.open}\nA memory surfaces:\n\n### Alice [people]\nThe sister.\n${ours.close}`);
    expect(wrapBlock("A memory surfaces:\n\n### Alice [people]\nThe sister.\n", ours)).toBe(block);
    expect(hasBlock(block, ours)).toBe(true);
  });
});

describe("stripBlocks", () => {
  test.each([
    ["a block in front of the message", `${block}\n\nhow is Alice?`, "how is Alice?"],
    ["a block after the text", `hello\n\n${block}`, "hello"],
    ["a block between two texts", `before\n\n${block}\n\nafter`, "before\n\nafter"],
    ["two blocks in a row", `${block}\n\n${block}\n\nafter`, "after"],
    ["text with no block", "plain text", "plain text"],
  ])("removes %s", (_name, input, expected) => {
    expect(stripBlocks(input, ours)).toBe(expected);
  });

  test.each([
    ["an unclosed marker", `${ours.open}\nAlice is here`],
    ["a close marker alone", `Alice ${ours.close}`],
    ["a block with another vault's markers", wrapBlock("### Alice", theirs)],
    ["an HTML comment that looks similar", "<!-- lorecards:abc -->Alice<!-- /lorecards:abc -->"],
    ["a close marker before the open marker", `${ours.close} Alice ${ours.open}`],
  ])("leaves %s exactly as it is", (_name, input) => {
    expect(stripBlocks(input, ours)).toBe(input);
  });
});
