import { expect, test } from "bun:test";
import { parseHookInput } from "../../src/hook/index.ts";

test.each([
  [
    "a UserPromptSubmit payload as Claude Code sends it",
    {
      session_id: "s",
      transcript_path: "/t/s.jsonl",
      cwd: "/w",
      permission_mode: "default",
      hook_event_name: "UserPromptSubmit",
      prompt: "hi",
    },
    { event: "UserPromptSubmit", prompt: "hi", sessionId: "s", transcriptPath: "/t/s.jsonl", cwd: "/w" },
  ],
  [
    "the older user_prompt field",
    { hook_event_name: "UserPromptSubmit", user_prompt: "yo" },
    { event: "UserPromptSubmit", prompt: "yo" },
  ],
  ["a prompt without an event name", { prompt: "p" }, { event: "UserPromptSubmit", prompt: "p" }],
  [
    "a SessionStart with its source",
    { hook_event_name: "SessionStart", source: "compact", session_id: "s" },
    { event: "SessionStart", source: "compact", sessionId: "s" },
  ],
  ["another event", { hook_event_name: "Stop" }, { event: "other", prompt: "" }],
  [
    "a relative transcript path",
    { prompt: "p", cwd: "/w", transcript_path: "t.jsonl" },
    { transcriptPath: "/w/t.jsonl" },
  ],
  [
    "fields of the wrong type",
    { prompt: 3, session_id: {}, hook_event_name: "UserPromptSubmit" },
    { prompt: "", sessionId: undefined },
  ],
])("%s", (_, payload, expected) => {
  expect(parseHookInput(JSON.stringify(payload))).toMatchObject(expected);
});

test.each(["", "garbage", "[]", "42", "null"])("%p is refused as invalid input", (raw) => {
  expect(() => parseHookInput(raw)).toThrow(expect.objectContaining({ code: "invalid_input" }));
});
