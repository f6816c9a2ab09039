/**
 * Every row of src/clients.ts against traffic recorded from the client release it names
 * (test/fixtures/clients/, ../shared/fixtures/real/clients/): each wrapper is in a user message that
 * client sent, and what is left once it is removed is the person's prompt, or nothing for a message
 * that holds only the client's text; each session header is on the requests that client sent.
 */

import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { CLIENT_BOOKKEEPING, CLIENT_SESSIONS, CLIENT_WRAPPERS } from "../../src/clients.ts";
import { typedText } from "../../src/recall/index.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";

const OURS = path.resolve(import.meta.dir, "..", "fixtures", "clients");
const SHARED = path.join(REAL_FIXTURES, "clients");
/** The rows recorded in shared/ are checked where it is there (and under CI, which has it). */
const HAVE_SHARED = haveRealFixture("client-table: the rows recorded in shared/", "clients");
const recordedHere = (file: string) => HAVE_SHARED || !file.startsWith(SHARED);

type Recorded = { headers: Record<string, string>; body: Record<string, unknown> };
const load = (file: string): Recorded => JSON.parse(fs.readFileSync(file, "utf8")) as Recorded;

/** The text of each user message (Chat Completions, Messages, Responses input, Gemini contents). */
function userTexts(body: Record<string, unknown>): string[] {
  const list = (body.messages ?? body.input ?? body.contents ?? []) as Record<string, unknown>[];
  return list
    .filter((m) => m.role === "user")
    .map((m) => {
      const parts = (m.content ?? m.parts) as unknown;
      if (typeof parts === "string") return parts;
      return (parts as { text?: string }[])
        .flatMap((p) => (typeof p.text === "string" ? [p.text] : []))
        .join("\n");
    });
}

/** Per wrapper row: a recorded request of that client, and what the person typed in its messages. */
const WRAPPER_TRAFFIC: Record<string, { file: string; typed: string[] }> = {
  "Claude Code <system-reminder>": {
    file: path.join(SHARED, "claude-code-claude-md", "003.json"),
    typed: ["What is 2+2?", "And 3+3?", "Tell me about Zorblax please."],
  },
  "Qwen Code <system-reminder>": {
    file: path.join(OURS, "qwen-code-continue", "002.json"),
    typed: ["Tell me about Zorblax please.", "And where is Vellmoor?"],
  },
  "Codex <environment_context>": {
    file: path.join(SHARED, "codex-exec-resume", "002.json"),
    typed: ["", "Tell me about Zorblax please.", "And where is Vellmoor?"],
  },
  "Codex # AGENTS.md instructions for ": {
    file: path.join(OURS, "codex-agents-md", "002.json"),
    typed: ["", "Tell me about Zorblax please.", "And where is it?"],
  },
  "Codex <user_instructions>": {
    file: path.join(OURS, "codex-user-instructions", "001.json"),
    typed: ["", "", "Tell me about Zorblax please."],
  },
  "Gemini CLI <session_context>": {
    file: path.join(OURS, "gemini-cli-resume", "002.json"),
    typed: ["Tell me about Zorblax please.", "And where is Vellmoor?"],
  },
};

describe("client wrappers, each from the traffic of the release it was seen in", () => {
  test("every row has recorded traffic here", () => {
    expect(CLIENT_WRAPPERS.map((w) => `${w.client} ${w.open}`).sort()).toEqual(
      Object.keys(WRAPPER_TRAFFIC).sort(),
    );
  });

  test.each(
    CLIENT_WRAPPERS.map((w) => [`${w.client} ${w.open}`, w] as const).filter(([name]) =>
      recordedHere(WRAPPER_TRAFFIC[name]?.file ?? ""),
    ),
  )("%s: in a user message the client sent, and only the person's words are left", (name, w) => {
    const { file, typed } = WRAPPER_TRAFFIC[name]!;
    const recorded = load(file);
    const texts = userTexts(recorded.body);
    expect(texts.some((t) => t.includes(w.open) && t.includes(w.close))).toBe(true);
    expect(recorded.headers["user-agent"] ?? "").toContain(w.seenIn);
    expect(texts.map(typedText)).toEqual(typed);
  });
});

/**
 * Per bookkeeping row with recorded traffic, and what the person typed in its messages (Claude Code's
 * slash-command rows are read from its transcripts: test/hook/transcript.test.ts).
 */
const BOOKKEEPING_TRAFFIC: Record<string, { file: string; typed: string[] }> = {
  "Qwen Code Managed memory has TWO directories.": {
    file: path.join(OURS, "qwen-code-memory", "001.json"),
    typed: ["Tell me about Zorblax please.", ""],
  },
  "opencode Generate a title for this conversation:": {
    file: path.join(OURS, "opencode-run", "001.json"),
    typed: ["", '"Tell me about Zorblax please."'],
  },
};

describe("client bookkeeping, from the traffic of the release it was seen in", () => {
  test.each(
    CLIENT_BOOKKEEPING.filter((b) => `${b.client} ${b.starts}` in BOOKKEEPING_TRAFFIC).map(
      (b) => [`${b.client} ${b.starts}`, b] as const,
    ),
  )("%s: a user message the client sent, and none of the person's words", (name, b) => {
    const { file, typed } = BOOKKEEPING_TRAFFIC[name]!;
    const recorded = load(file);
    const texts = userTexts(recorded.body);
    expect(texts.some((t) => t.startsWith(b.starts))).toBe(true);
    expect(recorded.headers["user-agent"] ?? "").toContain(b.seenIn);
    expect(texts.map(typedText)).toEqual(typed);
  });
});

/** Per session row: a recorded request of that client. */
const SESSION_TRAFFIC: Record<string, string> = {
  "x-claude-code-session-id": path.join(SHARED, "claude-code-tool-loop", "001.json"),
  "thread-id": path.join(OURS, "codex-agents-md", "001.json"),
  "session-id": path.join(OURS, "codex-agents-md", "001.json"),
  "x-session-id": path.join(OURS, "opencode-run", "001.json"),
};

describe("client session headers, each from recorded traffic", () => {
  test.each(
    CLIENT_SESSIONS.map((s) => [s.header, s] as const).filter(([header]) =>
      recordedHere(SESSION_TRAFFIC[header] ?? ""),
    ),
  )("%s", (header, s) => {
    const recorded = load(SESSION_TRAFFIC[header]!);
    expect(recorded.headers[header]).toMatch(/^[0-9a-zA-Z_-]{8,}$/);
    expect(recorded.headers["user-agent"] ?? "").toContain(s.seenIn);
  });
});
