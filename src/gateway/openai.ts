/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`). System prompts are `system` or `developer`
 * messages. `--inject user` puts the block in front of the user message; `--inject system` adds a
 * system message right after it, which keeps everything before it byte-identical.
 * Usage: `usage` {prompt_tokens, prompt_tokens_details.cached_tokens, completion_tokens}; streamed, only
 * in the last chunk and only when the client asked for it (`stream_options.include_usage`: the gateway
 * never adds it).
 * https://platform.openai.com/docs/api-reference/chat/create
 */

import { applyToMessageList, defineAdapter, readMessageList, SYSTEM_ROLES } from "./_chat.ts";
import { cachedPartOfInput } from "./_usage.ts";

export const openaiAdapter = defineAdapter({
  name: "openai",
  paths: ["/v1/chat/completions", "/chat/completions"],
  systemPlace: "after",
  promptCacheKey: true,
  read: (body) => readMessageList(body, (role) => SYSTEM_ROLES.has(role)),
  apply: applyToMessageList,
  usage: {
    paths: ["usage"],
    read: (u) => cachedPartOfInput(u.prompt_tokens, u.prompt_tokens_details, u.completion_tokens),
  },
});
