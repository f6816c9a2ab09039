/**
 * Ollama's own chat API (`POST /api/chat`), which many local chat apps and the `ollama` npm client
 * speak. `messages` are `{role, content, images?, tool_calls?, thinking?}` with `content` a string;
 * system prompts are `system` messages and a tool's answer is a `tool` message (never a turn). It
 * streams by default (newline-delimited JSON, one object per line, unless `stream: false`).
 * `--inject user` puts the block in front of the user message; `--inject system` adds a system
 * message right after it, which keeps everything before it byte-identical (Ollama reuses its cache
 * for the longest prefix that did not change).
 * Usage: `prompt_eval_count` and `eval_count` at the top of the answer (of the last line, streamed).
 * Ollama reports no cached part: a prompt it had in its cache is counted as the tokens it evaluated.
 * https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
 */

import type { Usage } from "../state/index.ts";
import { applyToMessageList, defineAdapter, readMessageList } from "./_chat.ts";
import { tokens } from "./_usage.ts";

export const ollamaAdapter = defineAdapter({
  name: "ollama",
  paths: ["/api/chat"],
  systemPlace: "after",
  read: (body) => readMessageList(body, (role) => role === "system"),
  apply: applyToMessageList,
  usage: { paths: [""], read: usageOf },
});

function usageOf(u: Record<string, unknown>): Usage | null {
  if (typeof u.prompt_eval_count !== "number") return null;
  return { uncached: tokens(u.prompt_eval_count), cacheRead: 0, cacheWrite: 0, output: tokens(u.eval_count) };
}
