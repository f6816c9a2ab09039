/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`). System prompts are `system` or `developer`
 * messages. `--inject user` puts the block in front of the user message; `--inject system` adds a
 * system message right after it, which keeps everything before it byte-identical.
 * https://platform.openai.com/docs/api-reference/chat/create
 */

import {
  type Adapter,
  byAnchor,
  type ChatMessage,
  contentText,
  type Edit,
  isObject,
  type Json,
  type JsonObject,
  makeView,
  prefixContent,
} from "./_chat.ts";

const SYSTEM_ROLES = new Set(["system", "developer"]);

export const openaiAdapter: Adapter = {
  name: "openai",
  paths: ["/v1/chat/completions", "/chat/completions"],
  systemPlace: "after",
  read(body) {
    if (!isObject(body) || !Array.isArray(body.messages)) return null;
    const raw: JsonObject[] = [];
    const messages: ChatMessage[] = [];
    const system: string[] = [];
    for (const m of body.messages) {
      if (!isObject(m) || typeof m.role !== "string") return null;
      const text = contentText(m.content);
      if (text === null) return null;
      raw.push(m);
      messages.push({ role: m.role, text });
      if (SYSTEM_ROLES.has(m.role)) system.push(text);
    }
    return makeView(system.join("\n"), raw, messages);
  },
  apply(body, edits) {
    const original = body.messages as JsonObject[];
    const grouped = byAnchor(edits);
    const out: Json[] = [];
    original.forEach((m, i) => {
      const here = grouped.get(i) ?? [];
      let msg: JsonObject = m;
      for (const e of here)
        if (e.place === "prefix") msg = { ...msg, content: prefixContent(msg.content, e.text) };
      out.push(msg);
      for (const e of here) if (e.place !== "prefix") out.push(systemMessage(e));
    });
    return { ...body, messages: out };
  },
};

function systemMessage(e: Edit): JsonObject {
  return { role: "system", content: e.text };
}
