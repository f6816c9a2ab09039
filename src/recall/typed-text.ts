/**
 * What the person typed, out of a user message that a client has wrapped. Coding clients put their
 * own text into user messages (Claude Code's `<system-reminder>` with the date and the whole CLAUDE.md,
 * Codex's `<environment_context>` and AGENTS.md, Gemini CLI's `<session_context>`): a keyword there
 * would fire a card on every prompt and put the project's instructions into the hit log. Slash-command
 * bookkeeping (`<command-name>`, `<local-command-stdout>`, …) is the client talking, not the person.
 * Which wrappers exist, and which client release each was seen in, is the table in src/clients.ts. The
 * hook and the gateway both match on this text only, so the same prompt fires the same cards through
 * either.
 */

import { CLIENT_BOOKKEEPING, CLIENT_WRAPPERS } from "../clients.ts";

const WRAPPERS = CLIENT_WRAPPERS.map((w) => ({ open: w.open, close: w.close }));
const BOOKKEEPING = CLIENT_BOOKKEEPING.map((b) => b.starts);

/** The text without client wrappers; "" when the message is only the client's own bookkeeping. */
export function typedText(text: string): string {
  const typed = text.includes("<") ? withoutWrappers(text).trim() : text.trim();
  return BOOKKEEPING.some((b) => typed.startsWith(b)) ? "" : typed;
}

/**
 * Removes each wrapper (from its opening text to the first closing text after it), as
 * `/(<a>|<b>|…)[\s\S]*?(<\/a>|…)/g` would with each opener paired to its own closer, in linear time:
 * that regex rescans to the end of the text from every opener that is never closed, which is
 * quadratic (a 2 MB message of unclosed `<system-reminder>` took over a minute). An opener with no
 * closer after it means no later one of that wrapper can close either, so it is dropped from the search.
 */
function withoutWrappers(text: string): string {
  const next = WRAPPERS.map((w) => text.indexOf(w.open));
  let out = "";
  let from = 0;
  for (;;) {
    let k = -1;
    for (let t = 0; t < next.length; t++) {
      if (next[t]! !== -1 && (k === -1 || next[t]! < next[k]!)) k = t;
    }
    if (k === -1) return out + text.slice(from);
    const start = next[k]!;
    const { open, close } = WRAPPERS[k]!;
    const end = text.indexOf(close, start + open.length);
    if (end === -1) {
      next[k] = -1;
      continue;
    }
    out += text.slice(from, start);
    from = end + close.length;
    for (let t = 0; t < next.length; t++) {
      if (next[t]! !== -1 && next[t]! < from) next[t] = text.indexOf(WRAPPERS[t]!.open, from);
    }
  }
}
