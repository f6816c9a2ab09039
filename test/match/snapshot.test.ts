import { describe, expect, test } from "bun:test";
import { type MatchCard, Matcher } from "../../src/match/matcher.ts";
import { loadSnapshot, saveSnapshot } from "../../src/match/snapshot.ts";
import { card } from "./_cards.ts";

const cards: MatchCard[] = ["Alice", "Bob", "the corner cafe", "猫", "小明", "Q"].map((title, i) => ({
  key: title,
  kind: "people",
  title,
  keywords: [`${title} kw`],
  aliases: [],
  secondary: { all: [], any: [], not: [], notAll: [] },
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
    const restored = new Matcher(cards, [{ ...saved!, offset: 0 }]);
    const messages = ["the corner cafe at 9", "x", "Alice, Bob and Q", "我的猫和小明"];
    const opts = { scanDepth: 1 };
    expect(await restored.match(messages, opts)).toEqual(await built.match(messages, opts));
    expect(restored.table.maxDepth).toBe(5);
    expect(saved!.paths.length).toBe(1);
    expect(saved!.paths.at(0)).toBe("a");
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

  test("the regex and always card lists survive the round trip, and regex cards still fire", async () => {
    const mixed = [
      ...cards,
      card("Wyrm", { keywords: ["/wyrm(s)?/i"] }),
      card("Sun", {}, { policy: "always" }),
      card("Rx", { keywords: ["b.t"] }, { regex: true, policy: "always" }),
    ];
    const built = new Matcher(mixed);
    const saved = loadSnapshot(
      saveSnapshot("s", { table: built.table, automaton: built.automaton, paths: [] }),
      "s",
    );
    const restored = new Matcher(mixed, [{ ...saved!, offset: 0 }]);
    expect(Array.from(restored.table.regexCards)).toEqual([6, 8]);
    expect(restored.alwaysCards()).toEqual([7, 8]);
    const messages = ["WYRMS and a bat", "Alice"];
    expect(await restored.match(messages, { scanDepth: 1 })).toEqual(
      await built.match(messages, { scanDepth: 1 }),
    );
    expect((await restored.match(messages, { scanDepth: 1 })).map((m) => mixed[m.card]!.key).sort()).toEqual([
      "Alice",
      "Rx",
      "Wyrm",
    ]);
  });

  test.each([
    ["LCM1, before the regex and always lists", 0x314d434c],
    ["LCM2, with the terms and paths in a JSON header", 0x324d434c],
  ])("a snapshot of an older layout (%s) means rebuild", (_name, magic) => {
    const built = new Matcher(cards);
    const bytes = saveSnapshot("s", { table: built.table, automaton: built.automaton, paths: [] });
    new DataView(bytes.buffer).setUint32(0, magic, true);
    expect(loadSnapshot(bytes, "s")).toBeUndefined();
  });
});
