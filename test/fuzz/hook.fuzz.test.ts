// Fuzzing the Claude Code hook (runHook) with any stdin: text that is not JSON, JSON of the wrong type,
// hook objects with odd fields, and transcripts of every shape (valid entries, junk lines, huge lines,
// a directory, nothing). It answers nothing or one JSON line under Claude Code's cap, or throws a coded
// error; it never changes a card file and never writes outside the vault.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { MAX_CONTEXT_CHARS, runHook } from "../../src/hook/index.ts";
import { anyString, hugeString, jsonValue, shapedObject, shortString } from "./_arbitraries.ts";
import {
  announce,
  attempt,
  expectCoded,
  expectFast,
  expectUntouched,
  fuzz,
  initOddVault,
  type Sandbox,
  sandbox,
  timeoutFor,
  untouched,
} from "./_support.ts";

announce("hook");

const BUDGET = { runs: 1000, ms: 4000 };
const NOW = () => new Date("2026-09-13T10:00:00Z");

/** Words that fire the example and odd cards, so many prompts inject something. */
const TRIGGERS = [
  "alice",
  "Friday deploy",
  "the corner cafe",
  "yak shaving",
  "crlf",
  "twice",
  "小林",
  "本",
  "w17",
  "weird",
];
const prompt = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...TRIGGERS), shortString), { maxLength: 6 })
      .map((p) => p.join(" ")),
  },
  { weight: 1, arbitrary: anyString },
);

/** One transcript line: an entry Claude Code writes, or something no one should. */
const text = fc.oneof(
  prompt,
  fc.constant("<!-- lorecards:000000000000 -->\nA memory surfaces:\n<!-- /lorecards:000000000000 -->"),
);
const transcriptLine = fc.oneof(
  {
    weight: 4,
    arbitrary: text.map((t) => JSON.stringify({ type: "user", message: { role: "user", content: t } })),
  },
  {
    weight: 3,
    arbitrary: text.map((t) =>
      JSON.stringify({
        type: "assistant",
        message: { role: "assistant", content: [{ type: "text", text: t }] },
      }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      JSON.stringify({
        type: "user",
        message: { content: [{ type: "tool_result", tool_use_id: "x", content: "alice" }] },
      }),
      JSON.stringify({ type: "summary", summary: "alice" }),
      JSON.stringify({ type: "system", subtype: "compact_boundary" }),
      JSON.stringify({ type: "user", isMeta: true, message: { content: "alice" } }),
    ),
  },
  {
    weight: 1,
    arbitrary: jsonValue(["type", "message", "content", "role", "text"], 3).map(
      (v) => JSON.stringify(v) ?? "null",
    ),
  },
  { weight: 1, arbitrary: fc.oneof(shortString, hugeString) },
);
const transcript = fc.array(transcriptLine, { maxLength: 12 }).map((lines) => lines.join("\n"));

/** Where `transcript_path` points. "file" is the generated transcript. */
const transcriptPath = fc.constantFrom(
  "file",
  "file",
  "file",
  "relative",
  "missing",
  "dir",
  "/dev/null",
  "vault",
  "",
);

const hookObject = shapedObject({
  hook_event_name: fc.constantFrom("UserPromptSubmit", "UserPromptSubmit", "SessionStart", "Stop", ""),
  session_id: fc.oneof(fc.constantFrom("s1", "s2", "../../escape", ""), shortString),
  prompt,
  user_prompt: prompt,
  transcript_path: transcriptPath,
  cwd: fc.constantFrom("/", "/tmp", "relative/dir", ""),
  source: fc.constantFrom("startup", "resume", "clear", "compact", "x"),
});

const stdin = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(hookObject, transcript).map(([o, t]) => ({ o, t })) },
  { weight: 1, arbitrary: fc.tuple(jsonValue([], 2), fc.constant("")).map(([o, t]) => ({ o, t })) },
  { weight: 1, arbitrary: fc.tuple(anyString, fc.constant("")).map(([raw, t]) => ({ o: { raw }, t })) },
);

describe("the hook", () => {
  let box: Sandbox;
  let transcripts: string;
  beforeAll(async () => {
    box = sandbox(initOddVault);
    // Transcripts live outside the sandbox: the hook only reads them.
    transcripts = fs.mkdtempSync(path.join(os.tmpdir(), "lc-fuzz-transcripts-"));
    fs.mkdirSync(path.join(transcripts, "dir"));
    // The first CJK prompt loads the word segmenter: not part of any case's time.
    await runHook(JSON.stringify({ prompt: "小林 alice" }), { vaultRoot: box.root, log: false });
  });
  afterAll(() => {
    box.remove();
    fs.rmSync(transcripts, { recursive: true, force: true });
  });

  function stdinText(o: unknown, t: string): string {
    if (o !== null && typeof o === "object" && "raw" in o) return String((o as { raw: unknown }).raw);
    if (o === null || typeof o !== "object" || Array.isArray(o)) return JSON.stringify(o) ?? "";
    const hook = { ...(o as Record<string, unknown>) };
    const file = path.join(transcripts, "t.jsonl");
    fs.writeFileSync(file, t);
    const where: Record<string, unknown> = {
      file,
      relative: "t.jsonl",
      missing: path.join(transcripts, "missing.jsonl"),
      dir: path.join(transcripts, "dir"),
      vault: box.root,
    };
    if (typeof hook.transcript_path === "string" && hook.transcript_path in where) {
      hook.transcript_path = where[hook.transcript_path];
      if (hook.transcript_path === "t.jsonl") hook.cwd = transcripts;
    }
    return JSON.stringify(hook);
  }

  test(
    "answers nothing or one JSON line under the cap, or a coded error; card files never change",
    async () => {
      const before = untouched(box);
      await fuzz(
        "hook/stdin",
        fc.asyncProperty(stdin, fc.boolean(), async ({ o, t }, log) => {
          const raw = stdinText(o, t);
          const out = await attempt(() =>
            runHook(raw, { vaultRoot: box.root, log, now: NOW, warn: () => {} }),
          );
          await expectFast(out, "runHook");
          expectUntouched(box, before, "the hook never writes cards");
          if (!out.ok) {
            expectCoded(out.error, ["invalid_input"]);
            return;
          }
          const { stdout, injected } = out.value;
          if (stdout === "") {
            expect(injected).toEqual([]);
            return;
          }
          expect(stdout.endsWith("\n")).toBe(true);
          expect(stdout.indexOf("\n")).toBe(stdout.length - 1);
          const answer = JSON.parse(stdout) as {
            hookSpecificOutput: { hookEventName: string; additionalContext: string };
          };
          // A session's start may be answered too (its boot note), under its own event's name.
          const start = (o as { hook_event_name?: unknown }).hook_event_name === "SessionStart";
          expect(answer.hookSpecificOutput.hookEventName).toBe(start ? "SessionStart" : "UserPromptSubmit");
          expect(answer.hookSpecificOutput.additionalContext.length).toBeLessThanOrEqual(MAX_CONTEXT_CHARS);
          if (!start) expect(injected.length).toBeGreaterThan(0);
        }),
        BUDGET,
      );
    },
    timeoutFor(BUDGET),
  );
});
