/**
 * Text completion, as the tests speak it (src/gateway/completions.ts): `/v1/completions` with the
 * whole chat in one `prompt` string, written in the ChatML template (`<|im_start|>role\n…<|im_end|>`,
 * then the assistant's turn left open for the model), the template SillyTavern's instruct mode and
 * llama.cpp's server use. Its turns read as messages; it has no tools and no images.
 */
import { protocolAnswer } from "../protocol-answers.ts";
import { type Conversation, type Msg, type Obj, textOf } from "./_shared.ts";
import type { Protocol } from "./types.ts";

const PATH = "/v1/completions";

const turn = (role: string, text: string) => `<|im_start|>${role}\n${text}<|im_end|>\n`;

export function completionsBody(c: Conversation): Obj {
  const turns = c.messages.map((m: Msg) => turn(m.role, textOf(m.content)));
  const prompt = `${c.system !== undefined ? turn("system", c.system) : ""}${turns.join("")}<|im_start|>assistant\n`;
  return { model: "text-test", prompt, max_tokens: 64, ...(c.stream ? { stream: true } : {}) };
}

/** The prompt's closed turns as messages (the assistant's open turn at the end is the model's to write). */
function messagesOf(raw: string): Obj[] {
  const prompt = String((JSON.parse(raw) as Obj).prompt ?? "");
  return [...prompt.matchAll(/<\|im_start\|>(system|user|assistant)\n([\s\S]*?)<\|im_end\|>/g)].map((m) => ({
    role: m[1]!,
    content: m[2]!,
  }));
}

const systems = (raw: string) =>
  messagesOf(raw)
    .filter((m) => m.role === "system")
    .map((m) => String(m.content));

export const completions: Protocol = {
  name: "completions",
  path: PATH,
  streamPath: PATH,
  streamType: "text/event-stream",
  alsoAt: ["/completions", "/api/v1/generate"],
  build: completionsBody,
  images: false,
  textShapes: false,
  messages: messagesOf,
  userMessages: (raw) => messagesOf(raw).filter((m) => m.role === "user"),
  prefix(raw) {
    const prompt = JSON.stringify((JSON.parse(raw) as Obj).prompt);
    const at = raw.indexOf(prompt);
    if (at === -1) throw new Error("body is not in compact JSON form");
    return raw.slice(0, at + prompt.length - 1);
  },
  // `--inject system` puts cards where `--inject user` does (src/gateway/completions.ts).
  systemSide: false,
  systemInjected(raw, originalSystem) {
    return systems(raw)
      .map((s) =>
        originalSystem !== undefined && s.startsWith(originalSystem) ? s.slice(originalSystem.length + 2) : s,
      )
      .filter((s) => s !== "")
      .join("\n\n");
  },
  systemText: (raw) => systems(raw).join("\n\n"),
  // A card placed as a message is a turn of the template's own, a system turn.
  placedRole: "system",
  // The system turn opens the prompt: a card written into it changes the request from its start.
  systemKeepsPrefix: false,
  reply: (body, text) => protocolAnswer(PATH, "", body, text)!,
  replyText: (reply) => String((reply.choices as Obj[])[0]!.text),
  canonical: (body) => ({
    system: null,
    tools: null,
    items: messagesOf(JSON.stringify(body)).map((m) => ({
      role: m.role,
      content: [{ type: "text", text: m.content }],
    })),
  }),
  oddBodies: [
    ["a prompt that is a list", '{"model":"x","prompt":["the friday deploy"]}'],
    ["a prompt with no template and no marker", '{"model":"x","prompt":"User: the friday deploy?\\nBot:"}'],
  ],
};
