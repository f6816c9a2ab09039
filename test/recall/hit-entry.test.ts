// The hit log's entry, built one way for the gateway, the hook, `try` and `/api/try`.
import { describe, expect, test } from "bun:test";
import { hitEntry } from "../../src/recall/index.ts";
import { chosenEntry } from "./_entry.ts";

describe("a hit-log entry", () => {
  test("names the chosen cards in order, the words they fired on once each, the source and the time", () => {
    const selection = [
      chosenEntry("Alice", "x", { hits: ["alice", "lyon"] }),
      chosenEntry("Bob", "x", { hits: ["lyon", "bees"] }),
    ];
    expect(hitEntry("gateway", { selection }, "Alice in Lyon", new Date(0))).toEqual({
      time: "1970-01-01T00:00:00.000Z",
      source: "gateway",
      keys: ["Alice", "Bob"],
      words: ["alice", "lyon", "bees"],
      message: "Alice in Lyon",
    });
  });

  test("keeps at most 60 units of the message, never cutting a character in half", () => {
    const entry = hitEntry("hook", { selection: [] }, "🐝".repeat(300), new Date(0));
    expect(entry.message).toBe("🐝".repeat(30));
    expect(entry.message.isWellFormed()).toBe(true);
  });

  test("keeps no secret, address or phone number of the message", () => {
    const message = "alice? my key is sk-proj-abc123def456ghi, mail a.b@example.org or call +1 415 555 0134";
    const entry = hitEntry("hook", { selection: [] }, message, new Date(0));
    for (const secret of ["sk-proj", "abc123", "example.org", "555"])
      expect(entry.message).not.toContain(secret);
    expect(entry.message.startsWith("alice? my key")).toBe(true);
  });
});
