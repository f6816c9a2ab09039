import { afterAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { parseLine, readTranscriptTail } from "../../src/hook/index.ts";
import { removeDir, tempDir } from "../support/vault.ts";

const FIXTURE = path.join(import.meta.dir, "fixtures", "transcript.jsonl");
const dir = tempDir();

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** One user or assistant message as Claude Code writes it. */
function entry(role: "user" | "assistant", text: string): string {
  return role === "user"
    ? line({ type: "user", message: { role: "user", content: text } })
    : line({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text }] } });
}
afterAll(() => removeDir(dir));

describe("the transcript tail", () => {
  test("keeps what the user typed and what the model wrote, after the last compaction only", () => {
    expect(readTranscriptTail(FIXTURE, { messages: 20 })).toEqual([
      { role: "user", text: "Let's meet at the corner cafe tomorrow?" },
      {
        role: "assistant",
        text: "Let me check your calendar first.\nTomorrow works. Alice said she might join too.",
      },
    ]);
  });

  test("returns only the newest messages asked for", () => {
    expect(readTranscriptTail(FIXTURE, { messages: 1 })).toEqual([
      {
        role: "assistant",
        text: "Let me check your calendar first.\nTomorrow works. Alice said she might join too.",
      },
    ]);
  });

  test.each([
    ["a missing file", path.join(dir, "nope.jsonl")],
    ["a directory", dir],
    ["no path at all", undefined],
  ])("%s is no history", (_, file) => {
    expect(readTranscriptTail(file, { messages: 6 })).toEqual([]);
  });

  test("a large transcript is read from its tail only, across chunk boundaries", () => {
    const file = path.join(dir, "big.jsonl");
    const filler = JSON.stringify({
      type: "user",
      message: { content: [{ type: "tool_result", content: "z".repeat(100_000) }] },
    });
    const lines = [];
    for (let i = 0; i < 30; i++) lines.push(filler);
    for (let i = 0; i < 6; i++) {
      lines.push(
        JSON.stringify({
          type: "user",
          message: { role: "user", content: `question ${i} ${"ü".repeat(40_000)}` },
        }),
      );
      lines.push(
        JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text: `answer ${i}` }] } }),
      );
    }
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    const tail = readTranscriptTail(file, { messages: 4 });
    expect(tail.map((t) => t.text.slice(0, 10))).toEqual([
      "question 4",
      "answer 4",
      "question 5",
      "answer 5",
    ]);
    expect(tail[0]!.text.length).toBe("question 4 ".length + 40_000);
  });

  test("reading stops at maxBytes, so a huge file costs a bounded read", () => {
    const file = path.join(dir, "huge.jsonl");
    const line = JSON.stringify({ type: "user", message: { content: "x".repeat(1000) } });
    fs.writeFileSync(
      file,
      `${JSON.stringify({ type: "user", message: { content: "oldest" } })}\n${`${line}\n`.repeat(2000)}`,
    );
    const tail = readTranscriptTail(file, { messages: 5000, maxBytes: 64 * 1024 });
    expect(tail.length).toBeLessThan(100);
    expect(tail.some((t) => t.text === "oldest")).toBe(false);
  });

  test("the prompt before a long run of tool calls is still found: tool output is passed over unread", () => {
    const file = path.join(dir, "tools.jsonl");
    const output = "y ".repeat(30_000);
    const lines = [entry("user", "let's meet at the corner cafe")];
    for (let i = 0; i < 20; i++) {
      lines.push(
        line({
          type: "assistant",
          message: { content: [{ type: "tool_use", id: `t${i}`, name: "Read", input: { file_path: "/a" } }] },
        }),
        line({
          type: "user",
          message: {
            role: "user",
            content: [{ tool_use_id: `t${i}`, type: "tool_result", content: output }],
          },
          toolUseResult: { stdout: output },
        }),
      );
    }
    lines.push(entry("assistant", "Done."));
    fs.writeFileSync(file, lines.join(""));
    expect(fs.statSync(file).size).toBeGreaterThan(2_000_000);
    expect(readTranscriptTail(file, { messages: 6 })).toEqual([
      { role: "user", text: "let's meet at the corner cafe" },
      { role: "assistant", text: "Done." },
    ]);
  });

  test("a line longer than maxLineBytes is skipped, and the lines before it are still read", () => {
    const file = path.join(dir, "long-line.jsonl");
    fs.writeFileSync(
      file,
      entry("user", "first") + entry("assistant", "z".repeat(300_000)) + entry("user", "third"),
    );
    expect(readTranscriptTail(file, { messages: 6, maxLineBytes: 200_000 })).toEqual([
      { role: "user", text: "first" },
      { role: "user", text: "third" },
    ]);
    expect(readTranscriptTail(file, { messages: 6 }).map((t) => t.text.length)).toEqual([5, 300_000, 5]);
  });

  test("a line still being appended (no newline yet, cut mid-JSON) is skipped, the rest is kept", () => {
    const file = path.join(dir, "torn.jsonl");
    const torn = entry("assistant", "half of a reply about the corner cafe").slice(0, 60);
    fs.writeFileSync(file, entry("user", "hello") + entry("assistant", "hi there") + torn);
    expect(readTranscriptTail(file, { messages: 6 })).toEqual([
      { role: "user", text: "hello" },
      { role: "assistant", text: "hi there" },
    ]);
  });

  test("a cleaning function is applied to every message, and messages it empties are dropped", () => {
    const tail = readTranscriptTail(FIXTURE, {
      messages: 20,
      clean: (t) => (t.includes("corner cafe") ? " " : t),
    });
    expect(tail.map((t) => t.role)).toEqual(["assistant"]);
  });
});

describe("one transcript line", () => {
  test.each([
    ["a plain user prompt", { type: "user", message: { content: "hello" } }, { role: "user", text: "hello" }],
    [
      "user text blocks",
      {
        type: "user",
        message: { content: [{ type: "text", text: "a" }, { type: "image" }, { type: "text", text: "b" }] },
      },
      { role: "user", text: "a\nb" },
    ],
    [
      "assistant text",
      { type: "assistant", message: { content: [{ type: "text", text: "hi" }] } },
      { role: "assistant", text: "hi" },
    ],
    [
      "a tool result",
      { type: "user", message: { content: [{ type: "tool_result", content: "out" }] } },
      null,
    ],
    ["a tool call", { type: "assistant", message: { content: [{ type: "tool_use", input: {} }] } }, null],
    ["a meta message", { type: "user", isMeta: true, message: { content: "caveat" } }, null],
    [
      "a sidechain (subagent) message",
      { type: "user", isSidechain: true, message: { content: "sub" } },
      null,
    ],
    ["a compaction summary", { type: "user", isCompactSummary: true, message: { content: "summary" } }, null],
    ["a slash command", { type: "user", message: { content: "<command-name>/clear</command-name>" } }, null],
    [
      "a system reminder only",
      { type: "user", message: { content: "<system-reminder>x</system-reminder>" } },
      null,
    ],
    ["a summary entry", { type: "summary", summary: "s" }, null],
    ["a compaction boundary", { type: "system", subtype: "compact_boundary" }, "boundary"],
  ])("%s", (_, entry, expected) => {
    expect(parseLine(JSON.stringify(entry))).toEqual(expected as ReturnType<typeof parseLine>);
  });

  test.each(["", "not json", "[1,2]", "null", '{"type":"user"}'])("%p is skipped", (line) => {
    expect(parseLine(line)).toBeNull();
  });
});
