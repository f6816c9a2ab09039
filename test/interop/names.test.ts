// Importers name every card themselves, from whatever title a book holds: the names they make must
// always be legal (one bad title must never refuse a whole book) and unique within one import.
import { describe, expect, test } from "bun:test";
import { keyProblem } from "../../src/card/index.ts";
import { type BookEntry, entriesToDrafts, plainMapped } from "../../src/interop/index.ts";
import { expectLinear } from "../support/growth.ts";

/** A small seeded generator (mulberry32), so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pieces that sit on every edge of the rules: devices, dots, spaces, controls, bidi, surrogates. */
const PIECES = [
  ...'aZ0-_é明😀¹ ./\\:*?"<>|\t\n',
  "\u0000",
  "\u007f",
  "\u0085",
  "\u00a0",
  "\u3000",
  "\ufeff",
  "\u200b",
  "\u061c",
  "\u200e",
  "\u202e",
  "\u2066",
  "\ud800",
  "\udc00",
  "e\u0301",
  "con",
  "CON",
  "aux",
  "Nul",
  "prn",
  "com1",
  "LPT9",
  "com¹",
  "lpt0",
  ".txt",
  ".md",
  " .",
  ". ",
  "..",
  "untitled",
];

function randomTitle(next: () => number): string {
  const parts: string[] = [];
  const count = Math.floor(next() * 10);
  for (let i = 0; i < count; i++) {
    const piece = PIECES[Math.floor(next() * PIECES.length)]!;
    // Now and then one piece many times over, to cross the 200-byte limit.
    parts.push(next() < 0.05 ? piece.repeat(1 + Math.floor(next() * 120)) : piece);
  }
  return parts.join("");
}

function entry(title: string): BookEntry {
  return { ...plainMapped({ title }), foreign: {} };
}

function keysOf(titles: string[]): string[] {
  return entriesToDrafts(titles.map(entry), { kind: "entry", namespace: "st" }).map((d) => d.key);
}

describe("names made by importers", () => {
  test.each([1, 2, 3, 4, 5, 6, 7, 8])(
    "every name made from 2,000 random titles (seed %i) is legal and unique ignoring case",
    (seed) => {
      const next = random(seed);
      const titles = Array.from({ length: 2000 }, () => randomTitle(next));
      // Repeats too: the numbered names (" 2", " 3", …) must be legal as well.
      for (let i = 0; i < 300; i++) titles.push(titles[Math.floor(next() * titles.length)]!);
      const keys = keysOf(titles);
      const illegal = keys
        .map((key, i) => ({ title: titles[i], key, problem: keyProblem(key) }))
        .filter((k) => k.problem !== null);
      expect(illegal).toEqual([]);
      expect(new Set(keys.map((k) => k.toLowerCase())).size).toBe(keys.length);
    },
  );

  test.each([
    ["a device name with an extension", "aux.txt"],
    ["a device name", "CON"],
    ["a right-to-left override", "invoice\u202etxt.exe"],
    ["nothing but dots", "...."],
    ["300 letters", "x".repeat(300)],
    ["300 CJK characters", "明".repeat(300)],
  ])("a book with a title that is %s imports every entry under a legal name", (_name, title) => {
    const keys = keysOf(["harbor", title, title, "lantern"]);
    expect(keys.map(keyProblem)).toEqual([null, null, null, null]);
    expect(keys.filter((k) => /\p{Bidi_Control}/u.test(k))).toEqual([]);
    expect(keys[0]).toBe("harbor");
    expect(keys[3]).toBe("lantern");
  });

  test("a title repeated 5,000 times is numbered, in time that grows linearly with the repeats", async () => {
    const keys = keysOf(Array(5000).fill("Harbor"));
    expect(keys.slice(0, 3)).toEqual(["Harbor", "Harbor 2", "Harbor 3"]);
    expect(keys.at(-1)).toBe("Harbor 5000");
    await expectLinear((n) => keysOf(Array(n).fill("Harbor")), 500, 10_000);
  });
});
