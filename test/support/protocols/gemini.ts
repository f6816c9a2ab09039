/**
 * The Gemini API, as the tests speak it (src/gateway/gemini.ts): `systemInstruction` and `contents`,
 * each a role (`user`, `model`) and parts; streaming is a path of its own (`:streamGenerateContent`,
 * `?alt=sse` for an event stream). Its messages read as the others': role `assistant` for `model`,
 * a content of one text part as that text, any other as parts (text parts as `{type: "text", text}`).
 */
import { protocolAnswer } from "../protocol-answers.ts";
import { type Conversation, isObj, listOf, listPrefix, type Msg, type Obj } from "./_shared.ts";
import type { Protocol } from "./types.ts";

const PATH = "/v1beta/models/gemini-test:generateContent";

export function geminiBody(c: Conversation): Obj {
  return {
    ...(c.system !== undefined ? { systemInstruction: { parts: [{ text: c.system }] } } : {}),
    contents: c.messages.map(geminiContent),
  };
}

function geminiContent(m: Msg): Obj {
  const parts =
    typeof m.content === "string"
      ? [{ text: m.content }]
      : m.content.map((p) =>
          p.type === "text" ? { text: p.text } : { inlineData: { mimeType: "image/png", data: p.data } },
        );
  return { role: m.role === "assistant" ? "model" : "user", parts };
}

export function geminiToolTurn(c: Conversation, result: string, after: Msg[] = []): Obj {
  const body = geminiBody(c);
  (body.contents as Obj[]).push(
    { role: "model", parts: [{ functionCall: { name: "look", args: {} } }] },
    { role: "user", parts: [{ functionResponse: { name: "look", response: { result } } }] },
    ...after.map(geminiContent),
  );
  return body;
}

const isText = (p: unknown): p is { text: string } =>
  isObj(p) && typeof p.text === "string" && p.thought !== true;

/** A content's parts as the suites read content: one text part as its text, else text parts typed. */
function contentOf(parts: unknown): unknown {
  if (!Array.isArray(parts)) return parts ?? null;
  if (parts.length === 1 && isText(parts[0])) return parts[0].text;
  return parts.map((p) => (isText(p) ? { ...p, type: "text" } : p));
}

const messagesOf = (raw: string): Obj[] =>
  listOf(raw, "contents").map(({ role, parts }) => ({
    role: role === "model" ? "assistant" : "user",
    content: contentOf(parts),
  }));

/** The texts of `systemInstruction`, part by part. */
function systemTexts(raw: string): string[] {
  const system = (JSON.parse(raw) as Obj).systemInstruction;
  if (typeof system === "string") return [system];
  const parts = isObj(system) && Array.isArray(system.parts) ? system.parts : [];
  return parts.flatMap((p) => (isText(p) ? [p.text] : []));
}

export const gemini: Protocol = {
  name: "gemini",
  path: PATH,
  streamPath: "/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
  streamType: "text/event-stream",
  alsoAt: ["/v1/models/gemini-test:generateContent"],
  build: geminiBody,
  toolTurn: geminiToolTurn,
  images: true,
  textShapes: false,
  messages: messagesOf,
  userMessages: (raw) => messagesOf(raw).filter((m) => m.role === "user"),
  prefix: (raw) => listPrefix(raw, "contents"),
  systemSide: true,
  systemInjected: (raw, originalSystem) =>
    systemTexts(raw)
      .filter((t) => t !== originalSystem)
      .join("\n\n"),
  systemText: (raw) => systemTexts(raw).join("\n\n"),
  // A card placed as a message is a content of its own, the user's (the API has no system role there).
  placedRole: "user",
  // `systemInstruction` precedes `contents`: a card appended there changes the request from its start.
  systemKeepsPrefix: false,
  reply: (body, text) => protocolAnswer(PATH, "", body, text)!,
  replyText: (reply) => {
    const [candidate] = reply.candidates as { content: { parts: { text: string }[] } }[];
    return candidate!.content.parts.map((p) => p.text).join("");
  },
  canonical(body) {
    const parts = (content: unknown) =>
      Array.isArray(content) ? content.map((p) => (isText(p) ? { ...p, type: "text" } : p)) : content;
    const system = body.systemInstruction as { parts?: unknown } | string | undefined;
    const contents = Array.isArray(body.contents) ? (body.contents as Obj[]) : [];
    return {
      system: typeof system === "string" ? [{ type: "text", text: system }] : (parts(system?.parts) ?? null),
      tools: body.tools ?? null,
      items: contents.map(({ parts: p, ...rest }) => ({ ...rest, content: parts(p) })),
    };
  },
  oddBodies: [
    ["contents that are not a list", '{"contents":"the friday deploy"}'],
    ["parts that are not a list", '{"contents":[{"role":"user","parts":"the friday deploy"}]}'],
    [
      "a systemInstruction that is a number",
      '{"systemInstruction":42,"contents":[{"role":"user","parts":[{"text":"the friday deploy"}]}]}',
    ],
  ],
};
