/**
 * The two protocols as the conformance suite sees them: where to send, how to build a body from a
 * neutral conversation, and where to look for injected text in what the upstream received.
 */

import { anthropicBody, anthropicToolTurn, type Conversation, openaiBody, openaiToolTurn } from "./bodies.ts";

type Body = Record<string, unknown> & { messages: Record<string, unknown>[] };

export interface Protocol {
  name: "openai" | "anthropic";
  path: string;
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
];

/** The end of the messages array in a body serialised without whitespace (before its closing `]`). */
export function messagesPrefix(raw: string): string {
  const body = parse(raw);
  const at = raw.indexOf('"messages":');
  const end = at + '"messages":'.length + JSON.stringify(body.messages).length - 1;
  if (at === -1 || raw.slice(at + '"messages":'.length, end + 1) !== JSON.stringify(body.messages)) {
    throw new Error("body is not in compact JSON form");
  }
  return raw.slice(0, end);
}
