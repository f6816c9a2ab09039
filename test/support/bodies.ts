/**
 * Request bodies in both protocols built from one neutral conversation, so the conformance suite can
 * say "this conversation" once and run it through either adapter.
 */

export interface Msg {
  role: "user" | "assistant";
  /** Plain text, or parts (text and an image that must come through untouched). */
  content: string | Part[];
}

export type Part = { type: "text"; text: string } | { type: "image"; data: string };

export interface Conversation {
  system?: string;
  messages: Msg[];
  stream?: boolean;
}

/** A 1×1 PNG, as base64. */
export const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export function openaiBody(c: Conversation): Record<string, unknown> {
  const messages: unknown[] = [];
  if (c.system !== undefined) messages.push({ role: "system", content: c.system });
  for (const m of c.messages) messages.push({ role: m.role, content: openaiContent(m.content) });
  return { model: "gpt-test", messages, ...(c.stream ? { stream: true } : {}) };
}

export function anthropicBody(c: Conversation): Record<string, unknown> {
  return {
    model: "claude-test",
    max_tokens: 256,
    ...(c.system !== undefined ? { system: c.system } : {}),
    messages: c.messages.map((m) => ({ role: m.role, content: anthropicContent(m.content) })),
    ...(c.stream ? { stream: true } : {}),
  };
}

/** OpenAI Responses: the system prompt is `instructions`, the messages are `input` items. */
export function responsesBody(c: Conversation): Record<string, unknown> {
  const input = c.messages.map((m) => ({ role: m.role, content: responsesContent(m.content) }));
  return {
    model: "gpt-test",
    ...(c.system !== undefined ? { instructions: c.system } : {}),
    input,
    ...(c.stream ? { stream: true } : {}),
  };
}

function responsesContent(content: Msg["content"]): unknown {
  if (typeof content === "string") return content;
  return content.map((p) =>
    p.type === "text"
      ? { type: "input_text", text: p.text }
      : { type: "input_image", image_url: `data:image/png;base64,${p.data}` },
  );
}

function openaiContent(content: Msg["content"]): unknown {
  if (typeof content === "string") return content;
  return content.map((p) =>
    p.type === "text" ? p : { type: "image_url", image_url: { url: `data:image/png;base64,${p.data}` } },
  );
}

function anthropicContent(content: Msg["content"]): unknown {
  if (typeof content === "string") return content;
  return content.map((p) =>
    p.type === "text"
      ? p
      : { type: "image", source: { type: "base64", media_type: "image/png", data: p.data } },
  );
}

/** The body after the model called a tool (`look`) and got `result` back: the same turn, continued. */
export function openaiToolTurn(c: Conversation, result: string): Record<string, unknown> {
  const body = openaiBody(c);
  const call = { id: "call_1", type: "function", function: { name: "look", arguments: "{}" } };
  (body.messages as unknown[]).push(
    { role: "assistant", content: null, tool_calls: [call] },
    { role: "tool", tool_call_id: "call_1", content: result },
  );
  return body;
}

export function anthropicToolTurn(c: Conversation, result: string): Record<string, unknown> {
  const body = anthropicBody(c);
  (body.messages as unknown[]).push(
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "look", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: result }] },
  );
  return body;
}

export function responsesToolTurn(c: Conversation, result: string): Record<string, unknown> {
  const body = responsesBody(c);
  (body.input as unknown[]).push(
    { type: "function_call", call_id: "call_1", name: "look", arguments: "{}" },
    { type: "function_call_output", call_id: "call_1", output: result },
  );
  return body;
}

/** The messages of an upstream body as the conformance suite compares them. */
export function messagesOf(body: string): Record<string, unknown>[] {
  return (JSON.parse(body) as { messages: Record<string, unknown>[] }).messages;
}
