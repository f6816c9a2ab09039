/**
 * What the person typed, out of a user message that a coding client has wrapped. Claude Code puts
 * `<system-reminder>` text (the date, the project's whole CLAUDE.md) into user messages, and Codex its
 * `<environment_context>` and `<user_instructions>` (AGENTS.md); a keyword in those would fire a card
 * on every prompt and put the project's instructions into the hit log. Slash-command bookkeeping
 * (`<command-name>`, `<local-command-stdout>`, …) is the client talking, not the person. The hook and
 * the gateway both match on this text only, so the same prompt fires the same cards through either.
 */

const WRAPPERS = ["system-reminder", "environment_context", "user_instructions"] as const;
const HARNESS = /^\s*<(command-name|command-message|command-args|local-command-stdout|local-command-caveat)>/;

/** The text without client wrappers; "" when the message is only the client's own bookkeeping. */
export function typedText(text: string): string {
  const typed = text.includes("<") ? withoutWrappers(text).trim() : text.trim();
  return HARNESS.test(typed) ? "" : typed;
}

/**
 * Removes each `<tag>…</tag>` (the first closing tag after the opening one), as
 * `/<(tag|…)>[\s\S]*?<\/\1>/g` would, in linear time: that regex rescans to the end of the text from
 * every opening tag that is never closed, which is quadratic (a 2 MB message of unclosed
 * `<system-reminder>` took over a minute). An opening tag with no closing tag after it means no later
 * one of that tag can close either, so that tag is dropped from the search.
 */
function withoutWrappers(text: string): string {
  const next = WRAPPERS.map((t) => text.indexOf(`<${t}>`));
  let out = "";
  let from = 0;
  for (;;) {
    let k = -1;
    for (let t = 0; t < next.length; t++) {
      if (next[t]! !== -1 && (k === -1 || next[t]! < next[k]!)) k = t;
    }
    if (k === -1) return out + text.slice(from);
    const start = next[k]!;
    const open = `<${WRAPPERS[k]}>`;
    const end = text.indexOf(`</${WRAPPERS[k]}>`, start + open.length);
    if (end === -1) {
      next[k] = -1;
      continue;
    }
    out += text.slice(from, start);
    from = end + open.length + 1;
    for (let t = 0; t < next.length; t++) {
      if (next[t]! !== -1 && next[t]! < from) next[t] = text.indexOf(`<${WRAPPERS[t]}>`, from);
    }
  }
}
