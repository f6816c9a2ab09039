/** OpenAI Chat Completions, as the tests speak it (src/gateway/openai.ts). */
import {
  type Body,
  type Conversation,
  canonicalItem,
  eventStream,
  listPrefix,
  type Msg,
  type Obj,
  parse,
  pieces,
  textOf,
  wantsStream,
} from "./_shared.ts";
import type { Protocol } from "./types.ts";

export function openaiBody(c: Conversation): Body {
  const messages: Obj[] = [];
  if (c.system !== undefined) messages.push({ role: "system", content: c.system });
  for (const m of c.messages) messages.push({ role: m.role, content: openaiContent(m.content) });
  return { model: "gpt-test", messages, ...(c.stream ? { stream: true } : {}) };
}

function openaiContent(content: Msg["content"]): unknown {
  if (typeof content === "string") return content;
  return content.map((p) =>
    p.type === "text" ? p : { type: "image_url", image_url: { url: `data:image/png;base64,${p.data}` } },
  );
}

/** The body after the model called a tool (`look`) and got `result` back: the same turn, continued. */
export function openaiToolTurn(c: Conversation, result: string, after: Msg[] = []): Body {
  const body = openaiBody(c);
  const call = { id: "call_1", type: "function", function: { name: "look", arguments: "{}" } };
  body.messages.push(
    { role: "assistant", content: null, tool_calls: [call] },
    { role: "tool", tool_call_id: "call_1", content: result },
    ...openaiBody({ messages: after }).messages,
  );
  return body;
}

function openaiReply(body: string, text: string): Response {
  const base = { id: "chatcmpl-fake", object: "chat.completion", created: 1, model: "fake-model" };
  if (!wantsStream(body)) {
    return Response.json({
      ...base,
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  }
  const chunk = (delta: object, finish: string | null) =>
    JSON.stringify({
      ...base,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const events = [chunk({ role: "assistant", content: "" }, null)];
  for (const piece of pieces(text)) events.push(chunk({ content: piece }, null));
  events.push(chunk({}, "stop"), "[DONE]");
  return eventStream(
    events.map((data) => [null, data]),
    { "content-type": "text/event-stream", "cache-control": "no-cache" },
  );
}

const systemMessages = (raw: string) =>
  parse(raw).messages.filter((m) => m.role === "system" || m.role === "developer");

export const openai: Protocol = {
  name: "openai",
  path: "/v1/chat/completions",
  streamPath: "/v1/chat/completions",
  streamType: "text/event-stream",
  alsoAt: ["/chat/completions"],
  build: openaiBody,
  toolTurn: openaiToolTurn,
  images: true,
  textShapes: true,
  messages: (raw) => parse(raw).messages,
  userMessages: (raw) => parse(raw).messages.filter((m) => m.role === "user"),
  prefix: (raw) => listPrefix(raw, "messages"),
  systemSide: true,
  systemInjected(raw, originalSystem) {
    const systems = parse(raw)
      .messages.filter((m) => m.role === "system")
      .map((m) => String(m.content));
    return systems.filter((s) => s !== originalSystem).join("\n\n");
  },
  systemText: (raw) =>
    systemMessages(raw)
      .map((m) => textOf(m.content))
      .join("\n\n"),
  placedRole: "system",
  systemKeepsPrefix: true,
  reply: openaiReply,
  replyText: (reply) => (reply.choices as { message: { content: string } }[])[0]!.message.content,
  canonical: (body) => ({
    system: null,
    tools: body.tools ?? null,
    items: (Array.isArray(body.messages) ? body.messages : []).map(canonicalItem),
  }),
  oddBodies: [
    ["a body that is not JSON", '{"model": "x", "messages": [oops'],
    ["messages that are not a list", '{"model":"x","messages":"the friday deploy"}'],
  ],
};
