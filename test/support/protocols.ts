/**
 * The two protocols as the conformance suite sees them: where to send, how to build a body from a
 * neutral conversation, and where to look for injected text in what the upstream received.
 */

import {
  anthropicBody,
  anthropicToolTurn,
  type Conversation,
  openaiBody,
  openaiToolTurn,
  responsesBody,
  responsesToolTurn,
} from "./bodies.ts";

type Body = Record<string, unknown> & { messages: Record<string, unknown>[] };
type Item = Record<string, unknown>;

export interface Protocol {
  name: "openai" | "anthropic" | "responses";
  path: string;
  /** The key of the body's message list. */
  list: "messages" | "input";
  build(c: Conversation): Record<string, unknown>;
  /** `c` followed by a tool call of the model and the tool's `result`. */
  toolTurn(c: Conversation, result: string): Record<string, unknown>;
  /** The user messages of an upstream body, in order. */
  userMessages(raw: string): Record<string, unknown>[];
  /** Text the gateway placed in system position (`--inject system`). */
  systemInjected(raw: string, originalSystem?: string): string;
}

const parse = (raw: string) => JSON.parse(raw) as Body;

export const PROTOCOLS: Protocol[] = [
  {
    name: "openai",
    path: "/v1/chat/completions",
    list: "messages",
    build: openaiBody,
    toolTurn: openaiToolTurn,
    userMessages: (raw) => parse(raw).messages.filter((m) => m.role === "user"),
    systemInjected(raw, originalSystem) {
      const systems = parse(raw)
        .messages.filter((m) => m.role === "system")
        .map((m) => String(m.content));
      return systems.filter((s) => s !== originalSystem).join("\n\n");
    },
  },
  {
    name: "anthropic",
    path: "/v1/messages",
    list: "messages",
    build: anthropicBody,
    toolTurn: anthropicToolTurn,
    userMessages: (raw) => parse(raw).messages.filter((m) => m.role === "user"),
    systemInjected(raw, originalSystem) {
      const system = String(parse(raw).system ?? "");
      return originalSystem && system.startsWith(originalSystem)
        ? system.slice(originalSystem.length + 2)
        : system;
    },
  },
  {
    name: "responses",
    path: "/v1/responses",
    list: "input",
    build: responsesBody,
    toolTurn: responsesToolTurn,
    userMessages: (raw) => (JSON.parse(raw) as { input: Item[] }).input.filter((m) => m.role === "user"),
    systemInjected(raw) {
      const items = (JSON.parse(raw) as { input: Item[] }).input;
      return items
        .filter((m) => m.role === "system")
        .map((m) => String(m.content))
        .join("\n\n");
    },
  },
];

/**
 * The body up to the end of its message list (`messages`, or a Responses `input` list), before the
 * list's closing `]`, for a body serialised without whitespace.
 */
export function messagesPrefix(raw: string, list: "messages" | "input" = "messages"): string {
  const body = parse(raw) as Record<string, unknown>;
  const key = `"${list}":`;
  const at = raw.indexOf(key);
  const end = at + key.length + JSON.stringify(body[list]).length - 1;
  if (at === -1 || raw.slice(at + key.length, end + 1) !== JSON.stringify(body[list])) {
    throw new Error("body is not in compact JSON form");
  }
  return raw.slice(0, end);
}
