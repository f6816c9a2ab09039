import { describe, expect, test } from "bun:test";
import { type MatchCard, Matcher } from "../../src/match/matcher.ts";
import { loadSnapshot, saveSnapshot } from "../../src/match/snapshot.ts";

const cards: MatchCard[] = ["Alice", "Bob", "the corner cafe", "猫", "小明", "Q"].map((title, i) => ({
  key: title,
  kind: "people",
  title,
  keywords: [`${title} kw`],
  aliases: [],
  secondary: { all: [], any: [], not: [] },
  scanDepth: i === 2 ? 5 : null,
  priority: 0,
  inject: true,
}));

describe("the matcher snapshot", () => {
  test("a saved matcher loaded back gives the same matches as a fresh build", async () => {
    const built = new Matcher(cards);
    const bytes = saveSnapshot("stamp-1", { table: built.table, automaton: built.automaton, paths: ["a"] });
    const saved = loadSnapshot(bytes, "stamp-1");
    expect(saved).toBeDefined();
    const restored = new Matcher(cards, saved);
    const messages = ["the corner cafe at 9", "x", "Alice, Bob and Q", "我的猫和小明"];
    const opts = { scanDepth: 1 };
    expect(await restored.match(messages, opts)).toEqual(await built.match(messages, opts));
    expect(restored.table.maxDepth).toBe(5);
    expect(saved?.paths).toEqual(["a"]);
  });

  test("a snapshot still loads from an unaligned buffer", () => {
    const built = new Matcher(cards);
    const bytes = saveSnapshot("s", { table: built.table, automaton: built.automaton, paths: [] });
    const shifted = new Uint8Array(bytes.length + 1).subarray(1);
    shifted.set(bytes);
    expect(loadSnapshot(shifted, "s")).toBeDefined();
  });

  test.each([
    ["another vault state", (b: Uint8Array) => b, "other-stamp"],
    ["a truncated file", (b: Uint8Array) => b.subarray(0, b.length - 9), "s"],
    ["a bad magic number", (b: Uint8Array) => Uint8Array.from([0, ...b.subarray(1)]), "s"],
    ["an empty file", () => new Uint8Array(0), "s"],
  ])("%s means rebuild, never an error", (_name, damage, stamp) => {
    const built = new Matcher(cards);
    expect(
      loadSnapshot(
        damage(saveSnapshot("s", { table: built.table, automaton: built.automaton, paths: [] })),
        stamp,
      ),
    ).toBeUndefined();
  });
});
