/**
 * The hook's stdin, per the Claude Code hooks reference (code.claude.com/docs/en/hooks, "Common input
 * fields" and "UserPromptSubmit input"): one JSON object with `hook_event_name`, `session_id`,
 * `transcript_path`, `cwd`, and for UserPromptSubmit the submitted `prompt`. Older write-ups call the
 * prompt `user_prompt`; both are accepted. SessionStart carries `source` (startup, resume, clear, compact).
 */
import path from "node:path";
import { describeError, LoreError } from "../errors.ts";

export type HookEvent = "UserPromptSubmit" | "SessionStart" | "other";

export interface HookInput {
  event: HookEvent;
  /** The raw event name as sent (for messages). */
  eventName: string;
  prompt: string;
  sessionId?: string;
  /** Absolute path of the session's JSONL transcript, resolved against `cwd` when relative. */
  transcriptPath?: string;
  cwd?: string;
  /** SessionStart only: why the session (re)started. */
  source?: string;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Parse the hook JSON. Throws LoreError invalid_input when it is not a JSON object. */
export function parseHookInput(raw: string): HookInput {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (err) {
    throw new LoreError("invalid_input", `hook input is not JSON: ${describeError(err)}`, { cause: err });
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new LoreError("invalid_input", "hook input must be a JSON object");
  }
  const o = data as Record<string, unknown>;
  const prompt = text(o.prompt) ?? text(o.user_prompt) ?? "";
  // A payload without an event name but with a prompt is a prompt (hand-written tests, older clients).
  const eventName = text(o.hook_event_name) ?? (prompt ? "UserPromptSubmit" : "");
  const event: HookEvent =
    eventName === "UserPromptSubmit" || eventName === "SessionStart" ? eventName : "other";
  const cwd = text(o.cwd);
  const transcript = text(o.transcript_path);
  return {
    event,
    eventName,
    prompt,
    sessionId: text(o.session_id),
    transcriptPath: transcript === undefined ? undefined : path.resolve(cwd ?? process.cwd(), transcript),
    cwd,
    source: text(o.source),
  };
}
