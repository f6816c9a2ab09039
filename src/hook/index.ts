/**
 * hook/ owns `lorecards hook`, the Claude Code UserPromptSubmit hook: it reads the hook JSON, takes the
 * recent turns from the tail of the session transcript, asks recall which cards belong in front of the
 * model, keeps the session's dedupe ledger, and answers with `hookSpecificOutput.additionalContext`.
 * It never blocks a prompt and never decides what matches (recall/ does); it loads nothing it does not
 * need, because it starts cold on every prompt.
 */
export { type HookEvent, type HookInput, parseHookInput } from "./input.ts";
export { beginTurn, conversationId, historyAt, recordTurn, resetSession, type TurnState } from "./ledger.ts";
export {
  HOOK_DEFAULTS,
  type HookOptions,
  type HookResult,
  MAX_CONTEXT_CHARS,
  runHook,
} from "./run.ts";
export { parseLine, readTranscriptTail, type TailOptions } from "./transcript.ts";
