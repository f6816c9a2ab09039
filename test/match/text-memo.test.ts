import { describe, expect, test } from "bun:test";
import { Automaton, type AutomatonHit } from "../../src/match/automaton.ts";
import { TextMemo } from "../../src/text-memo.ts";

/** A memo whose values say how many times each text was worked out. */
function counting(budget: number, longest: number) {
  const made: string[] = [];
  const memo = new TextMemo<string>(budget, longest);
  const get = (text: string) =>
    memo.get(text, (t) => {
      made.push(t);
      return t.toUpperCase();
    });
  return { get, made };
}

describe("what was worked out of a text is remembered within a budget of characters", () => {
  test("a text met again is not worked out again, and gives the same value", () => {
    const m = counting(100, 100);
    expect(m.get("alice")).toBe("ALICE");
    expect(m.get("alice")).toBe("ALICE");
    expect(m.made).toEqual(["alice"]);
  });

  test("past the budget the least recently used text goes first", () => {
    const m = counting(10, 10);
    m.get("aaaa"); // 4 characters
    m.get("bbbb"); // 8
    m.get("aaaa"); // used again: bbbb is now the oldest
    m.get("cccc"); // 12 > 10: bbbb goes
    m.get("aaaa");
    m.get("bbbb");
    expect(m.made).toEqual(["aaaa", "bbbb", "cccc", "bbbb"]);
  });

  test("texts met again outlive those never met since they were kept, however many are met", () => {
    const m = counting(12, 12);
    for (const t of ["aaaa", "bbbb", "cccc"]) m.get(t); // 12: full
    m.get("cccc");
    m.get("aaaa"); // both met again: bbbb, never met, is the one to go
    m.get("dddd");
    for (const t of ["aaaa", "cccc", "dddd"]) m.get(t);
    expect(m.made).toEqual(["aaaa", "bbbb", "cccc", "dddd"]);
    // Every text met again: room is still made, the oldest first once each had its second chance.
    m.get("eeee");
    m.get("eeee");
    expect(m.made).toEqual(["aaaa", "bbbb", "cccc", "dddd", "eeee"]);
  });

  test("a text longer than the longest kept is worked out each time", () => {
    const m = counting(1000, 5);
    m.get("a long text");
    m.get("a long text");
    expect(m.made).toEqual(["a long text", "a long text"]);
  });
});

describe("an automaton remembers the hits of the texts it scanned lately", () => {
  const automaton = new Automaton(["alice", "bob", "ali", "cafe"]);
  const scanned = (text: string) => {
    const hits: AutomatonHit[] = [];
    automaton.scan(text, (h) => hits.push(h));
    return hits;
  };

  test.each([["alice met bob at the cafe"], ["nobody here"], [""], ["alicealice bob"]])(
    "the hits of %p are the scan's own, the first time and the next",
    (text) => {
      expect(automaton.hitsOf(text)).toEqual(scanned(text));
      expect(automaton.hitsOf(text)).toEqual(scanned(text));
    },
  );
});
