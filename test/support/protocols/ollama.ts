/**
 * Ollama's `/api/chat`, as the tests speak it (src/gateway/ollama.ts): messages with a string
 * `content`, images as a list of base64 beside it, tool calls on the assistant's message and a `tool`
 * message for the answer. It streams unless the body says `stream: false`, in newline-delimited JSON.
 * A message with images reads as parts: each image, then the text.
 */
import { protocolAnswer } from "../protocol-answers.ts";
import {
  type Conversation,
  canonicalItem,
  listOf,
  listPrefix,
  type Msg,
  type Obj,
  textOf,
} from "./_shared.ts";
import type { Protocol } from "./types.ts";

const PATH = "/api/chat";

export function ollamaBody(c: Conversation): Obj {
  const messages: Obj[] = [];
  if (c.system !== undefined) messages.push({ role: "system", content: c.system });
  messages.push(...c.messages.map(ollamaMessage));
  return { model: "llama-test", messages, stream: c.stream === true };
}

function ollamaMessage(m: Msg): Obj {
  if (typeof m.content === "string") return { role: m.role, content: m.content };
  const text = m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
  const images = m.content.flatMap((p) => (p.type === "image" ? [p.data] : []));
  return { role: m.role, content: text, ...(images.length > 0 && { images }) };
}

export function ollamaToolTurn(c: Conversation, result: string, after: Msg[] = []): Obj {
  const body = ollamaBody(c);
  (body.messages as Obj[]).push(
    { role: "assistant", content: "", tool_calls: [{ function: { name: "look", arguments: {} } }] },
    { role: "tool", content: result },
    ...after.map(ollamaMessage),
  );
  return body;
}

const messagesOf = (raw: string): Obj[] =>
  listOf(raw, "messages").map(({ images, ...m }) =>
    Array.isArray(images)
      ? {
          ...m,
          content: [...images.map((data) => ({ type: "image", data })), { type: "text", text: m.content }],
        }
      : m,
  );

const systems = (raw: string) =>
  listOf(raw, "messages")
    .filter((m) => m.role === "system")
    .map((m) => textOf(m.content));

export const ollama: Protocol = {
  name: "ollama",
  path: PATH,
  streamPath: PATH,
  streamType: "application/x-ndjson",
  alsoAt: [],
  build: ollamaBody,
  toolTurn: ollamaToolTurn,
  images: true,
  textShapes: false,
  messages: messagesOf,
  userMessages: (raw) => messagesOf(raw).filter((m) => m.role === "user"),
  prefix: (raw) => listPrefix(raw, "messages"),
  systemSide: true,
  systemInjected: (raw, originalSystem) =>
    systems(raw)
      .filter((s) => s !== originalSystem)
      .join("\n\n"),
  systemText: (raw) => systems(raw).join("\n\n"),
  placedRole: "system",
  // A card in system position is a system message after the newest one: everything before it stays.
  systemKeepsPrefix: true,
  reply: (body, text) => protocolAnswer(PATH, "", body, text)!,
  replyText: (reply) => String((reply.message as Obj).content),
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
