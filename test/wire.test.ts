// The JSON convention of every --json and API answer (src/wire.ts): snake_case keys, ISO 8601 times.
import { describe, expect, test } from "bun:test";
import { isoFromNs, nsFromIso, snakeCase, toWire } from "../src/wire.ts";

describe("the wire form of a report", () => {
  test.each([
    ["cacheHitRatio", "cache_hit_ratio"],
    ["windowDays", "window_days"],
    ["day", "day"],
    ["already_snake", "already_snake"],
    ["counterfactual", "counterfactual"],
  ])("%s is written %s", (key, wire) => {
    expect(snakeCase(key)).toBe(wire);
  });

  test("keys become snake_case at every depth, and times in milliseconds become ISO 8601", () => {
    const report = {
      windowDays: 30,
      cards: [
        { card: "people/Alice", openRate: 0.5, lastSeen: Date.UTC(2026, 6, 1, 9, 30), lastOpened: null },
      ],
      turns: [
        { at: 0, leftOut: [{ id: "people/Bob", reason: "budget" }], counterfactual: { promptChars: 12 } },
      ],
      skipped: undefined,
    };
    expect<unknown>(toWire(report)).toEqual({
      window_days: 30,
      cards: [
        { card: "people/Alice", open_rate: 0.5, last_seen: "2026-07-01T09:30:00.000Z", last_opened: null },
      ],
      turns: [
        {
          at: "1970-01-01T00:00:00.000Z",
          left_out: [{ id: "people/Bob", reason: "budget" }],
          counterfactual: { prompt_chars: 12 },
        },
      ],
    });
  });

  test("a value is never touched, only keys: a key's text stays as it is where it is a value", () => {
    expect(toWire({ signal: "lastSeen", words: ["camelCase"] })).toEqual({
      signal: "lastSeen",
      words: ["camelCase"],
    });
  });
});

describe("a card's mtime on the wire", () => {
  test.each([
    ["0", "1970-01-01T00:00:00.000000000Z"],
    ["123", "1970-01-01T00:00:00.000000123Z"],
    ["1796171330656094251", "2026-12-02T00:28:50.656094251Z"],
    ["-1", "1969-12-31T23:59:59.999999999Z"],
  ])("%s ns is %s, and reads back to the same nanoseconds", (ns, iso) => {
    expect(isoFromNs(ns)).toBe(iso);
    expect(nsFromIso(iso)).toBe(ns);
  });

  test.each([
    ["2026-12-02T00:28:50Z", "1796171330000000000"],
    ["2026-12-02T00:28:50.5Z", "1796171330500000000"],
    ["1796171330656094251", "1796171330656094251"],
  ])("%s, as a client may send it, is %s ns", (text, ns) => {
    expect(nsFromIso(text)).toBe(ns);
  });

  test.each([
    "",
    "yesterday",
    "2026-12-02 00:28:50Z",
    "2026-12-02T00:28:50.1234567890Z",
    "2026-13-40T00:00:00Z",
  ])("%p is no mtime", (text) => {
    expect(nsFromIso(text)).toBeNull();
  });
});
