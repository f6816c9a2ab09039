// The life of a habit as tables: the gate, the passing of time, pins and strength.
import { describe, expect, test } from "bun:test";
import {
  DAY,
  type Fate,
  fate,
  type HabitRecord,
  passesGate,
  pinned,
  RULES,
  sighted,
  strengthOf,
} from "../../src/style/rules.ts";
import type { HabitState } from "../../src/style/types.ts";

const T0 = Date.parse("2025-03-01T00:00:00Z");
const seen = {
  id: "sl-1",
  signal: "no cap",
  kind: "slang" as const,
  locale: "en",
  note: "for real",
  useWhen: [],
  avoidWhen: ["formal" as const],
  source: "dictionary" as const,
};

/** Sightings in order, each `[conversation, day, hint?]`, from nothing. */
function replay(steps: [string, number, boolean?][]): HabitRecord {
  let h: HabitRecord | undefined;
  for (const [conv, day, hint] of steps) h = sighted(h, seen, conv, T0 + day * DAY, hint ?? false);
  return h!;
}

describe("the gate: two sightings in two conversations", () => {
  test.each([
    ["one sighting", [["a", 0]], "candidate"],
    [
      "two in one conversation",
      [
        ["a", 0],
        ["a", 1],
      ],
      "candidate",
    ],
    [
      "many in one conversation",
      [
        ["a", 0],
        ["a", 1],
        ["a", 2],
        ["a", 3],
      ],
      "candidate",
    ],
    [
      "two in two conversations",
      [
        ["a", 0],
        ["b", 1],
      ],
      "active",
    ],
    [
      "a hint and a message, two conversations",
      [
        ["a", 0, true],
        ["b", 1],
      ],
      "active",
    ],
    [
      "two hints in one conversation",
      [
        ["a", 0, true],
        ["a", 0, true],
      ],
      "candidate",
    ],
    [
      "two hints in two conversations weigh as two sightings",
      [
        ["a", 0, true],
        ["b", 0, true],
      ],
      "active",
    ],
  ] as [string, [string, number, boolean?][], HabitState][])("%s → %s", (_name, steps, state) => {
    expect(replay(steps).state).toBe(state);
  });

  test("counts sightings, hints and different conversations", () => {
    const h = replay([
      ["a", 0],
      ["a", 1, true],
      ["b", 2],
      ["a", 3],
    ]);
    expect([h.count, h.hints, h.conversations]).toEqual([4, 1, 2]);
    expect(h.conversationHashes).toEqual(["b", "a"]);
    expect([h.firstSeen, h.lastSeen]).toEqual([T0, T0 + 3 * DAY]);
  });

  test("keeps the most recent conversations only, still counting every different one", () => {
    const steps = Array.from(
      { length: RULES.conversationCap + 4 },
      (_, i) => [`c${i}`, i] as [string, number],
    );
    const h = replay(steps);
    expect(h.conversationHashes).toHaveLength(RULES.conversationCap);
    expect(h.conversationHashes.at(-1)).toBe(`c${RULES.conversationCap + 3}`);
    expect(h.conversations).toBe(RULES.conversationCap + 4);
  });

  test("the first example stays", () => {
    const first = sighted(undefined, { ...seen, example: "no cap it works" }, "a", T0, false);
    const second = sighted(first, { ...seen, example: "something else, no cap" }, "b", T0, false);
    expect(second.example).toBe("no cap it works");
  });

  test("passesGate is the rule itself", () => {
    expect(passesGate({ count: 2, conversations: 2 })).toBe(true);
    expect(passesGate({ count: 1, conversations: 2 })).toBe(false);
    expect(passesGate({ count: 9, conversations: 1 })).toBe(false);
  });
});

describe("the passing of time", () => {
  test.each([
    ["candidate, 29 days unseen", "candidate", false, 29, "keep"],
    ["candidate, 30 days unseen", "candidate", false, 30, "delete"],
    ["active, 179 days unseen", "active", false, 179, "keep"],
    ["active, 180 days unseen", "active", false, 180, "archive"],
    ["active, 360 days unseen", "active", false, 360, "delete"],
    ["archived, 359 days unseen", "archived", false, 359, "keep"],
    ["archived, 360 days unseen", "archived", false, 360, "delete"],
    ["pinned candidate, a year unseen", "candidate", true, 400, "keep"],
    ["pinned active, ten years unseen", "active", true, 3650, "keep"],
  ] as [string, HabitState, boolean, number, Fate][])("%s: %s", (_name, state, pin, days, expected) => {
    expect(fate({ state, pinned: pin, lastSeen: T0 }, T0 + days * DAY)).toBe(expected);
  });

  test("a sighting brings an archived habit back", () => {
    const archived = {
      ...replay([
        ["a", 0],
        ["b", 1],
      ]),
      state: "archived" as const,
    };
    expect(sighted(archived, seen, "c", T0 + 200 * DAY, false).state).toBe("active");
  });

  test("a clock running backwards never moves lastSeen back", () => {
    const h = replay([
      ["a", 10],
      ["b", 5],
    ]);
    expect(h.lastSeen).toBe(T0 + 10 * DAY);
  });
});

describe("pins and strength", () => {
  test("pinning makes a candidate active; unpinning keeps the state", () => {
    const candidate = replay([["a", 0]]);
    const pin = pinned(candidate, true);
    expect([pin.state, pin.pinned]).toEqual(["active", true]);
    const unpin = pinned(pin, false);
    expect([unpin.state, unpin.pinned]).toEqual(["active", false]);
  });

  test.each([
    [2, 2, "light"],
    [4, 4, "light"],
    [5, 2, "light"],
    [5, 3, "regular"],
    [11, 9, "regular"],
    [12, 3, "regular"],
    [12, 4, "strong"],
  ])("%i sightings in %i conversations: %s", (count, conversations, strength) => {
    expect(strengthOf({ count, conversations })).toBe(strength as "light");
  });
});
