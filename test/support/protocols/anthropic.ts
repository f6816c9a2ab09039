/** Anthropic Messages, as the tests speak it (src/gateway/anthropic.ts). */
import {
  type Body,
  type Conversation,
  canonicalContent,
  canonicalItem,
  eventStream,
  listPrefix,
  type Msg,
  parse,
  pieces,
  textOf,
  wantsStream,
} from "./_shared.ts";
import type { Protocol } from "./types.ts";

export function anthropicBody(c: Conversation): Body {
  return {
    model: "claude-test",
    max_tokens: 256,
    ...(c.system !== undefined ? { system: c.system } : {}),
    messages: c.messages.map((m) => ({ role: m.role, content: anthropicContent(m.content) })),
    ...(c.stream ? { stream: true } : {}),
  };
}

function anthropicContent(content: Msg["content"]): unknown {
  if (typeof content === "string") return content;
  return content.map((p) =>
    p.type === "text"
      ? p
      : { type: "image", source: { type: "base64", media_type: "image/png", data: p.data } },
  );
}

export function anthropicToolTurn(c: Conversation, result: string, after: Msg[] = []): Body {
  const body = anthropicBody(c);
  body.messages.push(
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "look", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: result }] },
    ...anthropicBody({ messages: after }).messages,
  );
  return body;
}

function anthropicReply(body: string, text: string): Response {
  const message = {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model: "fake-model",
    content: [{ type: "text", text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
  if (!wantsStream(body)) return Response.json(message);
  return eventStream([
    ["message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null } }],
    [
      "content_block_start",
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ],
    ...pieces(text).map((p): [string, object] => [
      "content_block_delta",
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: p } },
    ]),
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 1 },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ]);
}

export const anthropic: Protocol = {
  name: "anthropic",
  path: "/v1/messages",
  streamPath: "/v1/messages",
  streamType: "text/event-stream",
  alsoAt: ["/messages"],
  build: anthropicBody,
  toolTurn: anthropicToolTurn,
  images: true,
  textShapes: true,
  messages: (raw) => parse(raw).messages,
  userMessages: (raw) => parse(raw).messages.filter((m) => m.role === "user"),
  prefix: (raw) => listPrefix(raw, "messages"),
  systemSide: true,
  systemInjected(raw, originalSystem) {
    const system = String(parse(raw).system ?? "");
    return originalSystem && system.startsWith(originalSystem)
      ? system.slice(originalSystem.length + 2)
      : system;
  },
  systemText: (raw) => textOf(parse(raw).system),
  // Messages carry no system role: a card placed as a message of its own is a user message.
  placedRole: "user",
  // `system` precedes every message: a card appended there changes the request from its start.
  systemKeepsPrefix: false,
  reply: anthropicReply,
  replyText: (reply) => (reply.content as { text: string }[])[0]!.text,
  canonical: (body) => ({
    system: canonicalContent(body.system ?? null),
    tools: body.tools ?? null,
    items: (Array.isArray(body.messages) ? body.messages : []).map(canonicalItem),
  }),
  oddBodies: [
    ["content that is a number", '{"model":"x","messages":[{"role":"user","content":42}]}'],
    ["a message without a role", '{"messages":[{"content":"the friday deploy"}]}'],
    [
      "a system field that is an object",
      '{"system":{"a":1},"messages":[{"role":"user","content":"deploy"}]}',
    ],
  ],
};
