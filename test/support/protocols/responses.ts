/** OpenAI Responses, as the tests speak it (src/gateway/responses.ts). */
import {
  type Conversation,
  canonicalItem,
  eventStream,
  listPrefix,
  type Msg,
  type Obj,
  pieces,
  wantsStream,
} from "./_shared.ts";
import type { Protocol } from "./types.ts";

/** OpenAI Responses: the system prompt is `instructions`, the messages are `input` items. */
export function responsesBody(c: Conversation): Obj {
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

export function responsesToolTurn(c: Conversation, result: string, after: Msg[] = []): Obj {
  const body = responsesBody(c);
  (body.input as unknown[]).push(
    { type: "function_call", call_id: "call_1", name: "look", arguments: "{}" },
    { type: "function_call_output", call_id: "call_1", output: result },
    ...(responsesBody({ messages: after }).input as unknown[]),
  );
  return body;
}

/** The Responses API's answer: a response object, or its event stream (named events, typed data). */
function responsesReply(body: string, text: string): Response {
  const part = { type: "output_text", text, annotations: [] };
  const item = { id: "msg_fake", type: "message", role: "assistant", status: "completed", content: [part] };
  const response = {
    id: "resp_fake",
    object: "response",
    created_at: 1,
    status: "completed",
    model: "fake-model",
    output: [item],
    output_text: text,
    usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
  };
  if (!wantsStream(body)) return Response.json(response);
  const started = { ...response, status: "in_progress", output: [], output_text: "" };
  const events: Obj[] = [
    { type: "response.created", response: started },
    { type: "response.output_item.added", output_index: 0, item: { ...item, content: [] } },
    ...pieces(text).map((delta) => ({
      type: "response.output_text.delta",
      item_id: "msg_fake",
      output_index: 0,
      content_index: 0,
      delta,
    })),
    { type: "response.output_text.done", item_id: "msg_fake", output_index: 0, content_index: 0, text },
    { type: "response.output_item.done", output_index: 0, item },
    { type: "response.completed", response },
  ];
  return eventStream(events.map((data, n) => [String(data.type), { ...data, sequence_number: n }]));
}

const inputOf = (raw: string) => (JSON.parse(raw) as { input: Obj[] }).input;

export const responses: Protocol = {
  name: "responses",
  path: "/v1/responses",
  streamPath: "/v1/responses",
  streamType: "text/event-stream",
  alsoAt: ["/responses"],
  build: responsesBody,
  toolTurn: responsesToolTurn,
  images: true,
  textShapes: true,
  messages: inputOf,
  userMessages: (raw) => inputOf(raw).filter((m) => m.role === "user"),
  prefix: (raw) => listPrefix(raw, "input"),
  systemSide: true,
  systemInjected(raw) {
    return inputOf(raw)
      .filter((m) => m.role === "system")
      .map((m) => String(m.content))
      .join("\n\n");
  },
  systemText: (raw) => String((JSON.parse(raw) as Obj).instructions ?? ""),
  placedRole: "system",
  systemKeepsPrefix: true,
  reply: responsesReply,
  replyText: (reply) => String(reply.output_text),
  canonical(body) {
    const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
    return {
      system: body.instructions ?? null,
      tools: body.tools ?? null,
      items: Array.isArray(input) ? input.map(canonicalItem) : [],
    };
  },
  oddBodies: [
    ["input that is a number", '{"model":"x","input":42}'],
    ["instructions that are an object", '{"instructions":{"a":1},"input":"the friday deploy"}'],
    ["an input item that is not an object", '{"model":"x","input":["the friday deploy"]}'],
  ],
};
