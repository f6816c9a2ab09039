// The hit log's entry, built one way for the gateway, the hook, `try` and `/api/try`.
import { describe, expect, test } from "bun:test";
import { hitEntry } from "../../src/recall/index.ts";

describe("a hit-log entry", () => {
  test("names the chosen cards in order, the words they fired on once each, the source and the time", () => {
    const chosen = [
      { key: "Alice", hits: ["alice", "lyon"] },
      { key: "Bob", hits: ["lyon", "bees"] },
    ];
    expect(hitEntry("gateway", { chosen }, "Alice in Lyon", new Date(0))).toEqual({
      time: "1970-01-01T00:00:00.000Z",
      source: "gateway",
      keys: ["Alice", "Bob"],
      words: ["alice", "lyon", "bees"],
      message: "Alice in Lyon",
    });
  });

  test("keeps the first 200 characters of the message, never cutting one in half", () => {
    const entry = hitEntry("hook", { chosen: [] }, "🐝".repeat(300), new Date(0));
    expect(Array.from(entry.message)).toHaveLength(200);
    expect(entry.message.isWellFormed()).toBe(true);
  });
});
