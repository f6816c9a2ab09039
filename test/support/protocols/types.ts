/**
 * A protocol as the tests see it: everything protocol-specific the shared suites need (conformance,
 * replay, tiers, clients, fail-open, the fake upstream, the replay of recorded traffic), so a new
 * protocol is one descriptor here (docs/ARCHITECTURE.md, "Adding a protocol").
 */
import type { ApiName } from "../../../src/gateway/index.ts";
import type { Body, Conversation, Obj } from "./_shared.ts";

/** A request as the model reads it, whatever shape the client chose (canonical.ts). */
export interface CanonicalBody {
  /** The system prompt when the protocol keeps it outside the messages (else null). */
  system: unknown;
  tools: unknown;
  /** Messages (or Responses input items) in order. */
  items: Obj[];
}

export interface Protocol {
  name: ApiName;
  /** The path a client calls. */
  path: string;
  /** The key of the body's message list. */
  list: "messages" | "input";
  build(c: Conversation): Obj;
  /** `c` followed by a tool call of the model and the tool's `result`. */
  toolTurn(c: Conversation, result: string): Obj;
  /** The user messages of an upstream body, in order. */
  userMessages(raw: string): Obj[];
  /** Text the gateway placed in system position (`--inject system`). */
  systemInjected(raw: string, originalSystem?: string): string;
  /** The system prompt of an upstream body as text, our blocks in it included. */
  systemText(raw: string): string;
  /** The role a card placed as a message of its own (`role: system`) goes in as. */
  placedRole: string;
  /**
   * `--inject system` keeps every earlier byte of the request (false: the system text precedes every
   * message, so replay cannot keep the prefix there, and the replay suite does not ask it to).
   */
  systemKeepsPrefix: boolean;
  /** The upstream's answer to a chat request (`text` the reply), streamed when the body asks for it. */
  reply(body: string, text: string): Response;
  /** The assistant's text in a JSON reply, as a client reads it. */
  replyText(reply: Obj): string;
  /** The request as the model reads it. */
  canonical(body: Obj): CanonicalBody;
  /** Bodies on this protocol's path whose shape its adapter does not read: forwarded byte for byte. */
  oddBodies: readonly [name: string, raw: string][];
}

export type { Body, Conversation };
