/**
 * What the person typed, out of a user message that a coding client has wrapped. Claude Code puts
 * `<system-reminder>` text (the date, the project's whole CLAUDE.md) into user messages, and Codex its
 * `<environment_context>` and `<user_instructions>` (AGENTS.md); a keyword in those would fire a card
 * on every prompt and put the project's instructions into the hit log. Slash-command bookkeeping
 * (`<command-name>`, `<local-command-stdout>`, …) is the client talking, not the person. The hook and
 * the gateway both match on this text only, so the same prompt fires the same cards through either.
 */

const WRAPPERS = /<(system-reminder|environment_context|user_instructions)>[\s\S]*?<\/\1>/g;
const HARNESS = /^\s*<(command-name|command-message|command-args|local-command-stdout|local-command-caveat)>/;

/** The text without client wrappers; "" when the message is only the client's own bookkeeping. */
export function typedText(text: string): string {
  const typed = text.includes("<") ? text.replace(WRAPPERS, "").trim() : text.trim();
  return HARNESS.test(typed) ? "" : typed;
}
