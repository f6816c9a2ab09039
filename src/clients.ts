/**
 * What real clients do around the person's words, in one table each, with the client release each
 * row was seen in (docs/GATEWAY.md "Clients" prints them; every row has a test on traffic recorded
 * from that release, test/fixtures/clients/):
 * - `CLIENT_WRAPPERS`: text a client puts into a user message that the person did not type (the date,
 *   the project's instructions, its own context). A keyword there would fire a card on every prompt,
 *   and a message holding only such text is not a turn. recall/typed-text.ts removes them, for the
 *   gateway and the hook alike.
 * - `CLIENT_SESSIONS`: headers by which a client names its own conversation; the gateway keys a
 *   conversation on them (gateway/conversation.ts), so two sessions that open with the same prompt
 *   stay two, and one whose system prompt changes part way stays one.
 * Pure data: a client seen doing something new gets a row here, not code elsewhere.
 */

export interface ClientWrapper {
  client: string;
  /** The release it was seen in (a row stays while older releases are in use). */
  seenIn: string;
  /** The text a wrapper starts with… */
  open: string;
  /** …and the first text after it that ends it (both removed, with what is between). */
  close: string;
  /** What the client puts there. */
  holds: string;
}

export const CLIENT_WRAPPERS: readonly ClientWrapper[] = [
  {
    client: "Claude Code",
    seenIn: "2.1.197",
    open: "<system-reminder>",
    close: "</system-reminder>",
    holds: "the date, the project's CLAUDE.md, reminders",
  },
  {
    client: "Qwen Code",
    seenIn: "0.24.4",
    open: "<system-reminder>",
    close: "</system-reminder>",
    holds: "the date, the folder it works in, its skills and tools",
  },
  {
    client: "Codex",
    seenIn: "0.171.0",
    open: "<environment_context>",
    close: "</environment_context>",
    holds: "working directory, shell, date, sandbox",
  },
  {
    client: "Codex",
    seenIn: "0.171.0",
    open: "# AGENTS.md instructions for ",
    close: "</INSTRUCTIONS>",
    holds: "the project's AGENTS.md",
  },
  {
    client: "Codex",
    seenIn: "0.39.0",
    open: "<user_instructions>",
    close: "</user_instructions>",
    holds: "the project's AGENTS.md (releases before the heading form)",
  },
  {
    client: "Gemini CLI",
    seenIn: "0.61.0",
    open: "<session_context>",
    close: "</session_context>",
    holds: "date, operating system, working directory and its file tree",
  },
];

/**
 * Messages that are a client's own bookkeeping as a whole when they start with one of these (Claude
 * Code's slash commands and their output, Qwen Code's memory agent's task, opencode's title request's
 * instruction): the client talking, not the person.
 */
export const CLIENT_BOOKKEEPING: readonly { client: string; seenIn: string; starts: string }[] = [
  { client: "Claude Code", seenIn: "2.1.197", starts: "<command-name>" },
  { client: "Claude Code", seenIn: "2.1.197", starts: "<command-message>" },
  { client: "Claude Code", seenIn: "2.1.197", starts: "<command-args>" },
  { client: "Claude Code", seenIn: "2.1.197", starts: "<local-command-stdout>" },
  { client: "Claude Code", seenIn: "2.1.197", starts: "<local-command-caveat>" },
  // Its memory agent's task, after the chat so far (with its own system prompt): the person's memory
  // files quoted in it would fire cards on every turn, and it is not a turn of theirs.
  { client: "Qwen Code", seenIn: "0.24.4", starts: "Managed memory has TWO directories." },
  // Its title request, sent beside the first prompt: this line, then the person's prompt as a message of
  // its own. Counted as a turn, it made the title request turn 2 of a one-prompt chat; whichever of the
  // two requests came first then decided where the first turn's cards were on the next prompt.
  { client: "opencode", seenIn: "1.18.33", starts: "Generate a title for this conversation:" },
];

export interface ClientSession {
  client: string;
  seenIn: string;
  /** The request header (lower case) that carries the client's session id. */
  header: string;
}

/**
 * In order of preference (after the gateway's own `X-Lorecards-Conversation`). Claude Code's stays the
 * same across `--continue` (its system prompt does not); Codex's two are the same across `exec resume`;
 * opencode sends one per session, so two sessions that open with the same prompt stay apart.
 */
export const CLIENT_SESSIONS: readonly ClientSession[] = [
  { client: "Claude Code", seenIn: "2.1.197", header: "x-claude-code-session-id" },
  { client: "Codex", seenIn: "0.171.0", header: "thread-id" },
  { client: "Codex", seenIn: "0.171.0", header: "session-id" },
  { client: "opencode", seenIn: "1.18.33", header: "x-session-id" },
];
