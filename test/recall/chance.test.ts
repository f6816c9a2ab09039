// Probability: a seeded draw per card, the same answer for the same seed on every run and platform.
import { describe, expect, test } from "bun:test";
import { chanceDraw, fnv1a, hash32, seedOf } from "../../src/recall/stages/chance.ts";
import { chosen, lorebook, person, verdictOf } from "./_lorebook.ts";

describe("the hash behind every draw", () => {
  // The published FNV-1a test vectors (the reference implementation's test suite).
  test.each([
    ["", 0x811c9dc5],
    ["a", 0xe40c292c],
    ["foobar", 0xbf9cf968],
  ])("fnv1a(%p) is the published value", (text, expected) => {
    expect(fnv1a(text)).toBe(expected);
  });

  // Pinned: a stored seed must give the same draws after any upgrade (FNV-1a + MurmurHash3 fmix32).
  test.each([
    ["", 0xab3e7c0b],
    ["a", 0x1a80b1b3],
    ["people/Ann", 0x2b80c3d3],
    ["玲", 0x485dbb13],
  ])("hash32(%p) is pinned", (text, expected) => {
    expect(hash32(text)).toBe(expected);
  });

  test("draws spread over [0, 100) for ids that share a prefix", () => {
    const draws = Array.from({ length: 1000 }, (_, i) => chanceDraw("seed", `people/Card${i}`));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(100);
    const low = draws.filter((d) => d < 50).length;
    expect(low).toBeGreaterThan(450);
    expect(low).toBeLessThan(550);
  });

  test("without a seed, the turns (roles included) are the seed", () => {
    const turns = [{ role: "user" as const, text: "hi" }];
    expect(seedOf(turns)).toBe(seedOf([{ role: "user", text: "hi" }]));
    expect(seedOf(turns)).not.toBe(seedOf([{ role: "assistant", text: "hi" }]));
    expect(seedOf(turns, "given")).toBe("given");
  });
});

describe("probability", () => {
  const cards = Array.from({ length: 12 }, (_, i) => person(`Card${i}`, "probability: 50\nkeywords: [tea]"));

  test("the same seed gives the same answer twice; another seed another answer", async () => {
    const book = await lorebook(cards);
    const first = chosen(await book.recall(["tea"], { seed: "s1", budget: 10_000 }));
    const again = chosen(await book.recall(["tea"], { seed: "s1", budget: 10_000 }));
    const other = chosen(await book.recall(["tea"], { seed: "s2", budget: 10_000 }));
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(12);
  });

  test("without a seed the same turns give the same answer", async () => {
    const book = await lorebook(cards);
    const first = chosen(await book.recall(["tea"], { budget: 10_000 }));
    expect(chosen(await book.recall(["tea"], { budget: 10_000 }))).toEqual(first);
  });

  test.each([
    ["probability 0 never fires", 0, "Ann vetoed/probability named"],
    ["probability 100 always fires", 100, "Ann chosen named"],
  ])("%s, whatever the seed", async (_name, probability, expected) => {
    const book = await lorebook([person("Ann", `probability: ${probability}`)]);
    for (const seed of ["a", "b", "c", "d", "e", "f"]) {
      expect(verdictOf(await book.recall(["Ann"], { seed }), "Ann")).toBe(expected);
    }
  });

  test("a card fires on roughly its probability's share of seeds", async () => {
    const book = await lorebook([person("Ann", "probability: 30")]);
    let fired = 0;
    for (let i = 0; i < 300; i++) if (chosen(await book.recall(["Ann"], { seed: `s${i}` })).length) fired++;
    expect(fired).toBeGreaterThan(60);
    expect(fired).toBeLessThan(120);
  });

  test("always cards draw too (SillyTavern rolls constant entries)", async () => {
    const book = await lorebook([person("Ann", "context: always\nprobability: 0")]);
    expect(verdictOf(await book.recall(["nobody"]), "Ann")).toBe("Ann vetoed/probability always");
  });

  test("a card asked for by id is not drawn", async () => {
    const book = await lorebook([person("Ann", "probability: 0")]);
    const result = await book.recall(["Ann"], { explicit: new Set(["people/Ann"]) });
    expect(verdictOf(result, "Ann")).toBe("Ann chosen explicit");
  });
});
