/**
 * A protocol as the tests see it: everything protocol-specific the shared suites need (conformance,
 * replay, tiers, clients, fail-open, the fake upstream, the replay of recorded traffic), so a new
 * protocol is one descriptor here (docs/ARCHITECTURE.md, "Adding a protocol").
 */
import type { ApiName } from "../../../src/gateway/index.ts";
import type { Body, Conversation, Msg, Obj } from "./_shared.ts";

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
  /** The path of a streamed request (the Gemini API names streaming in its path, the others in the body). */
  streamPath: string;
  /** The content type of a streamed answer (an event stream, or Ollama's newline-delimited JSON). */
  streamType: string;
  /** Other paths clients call for the same API (a base URL that already ends in `/v1`, another version). */
  alsoAt: readonly string[];
  build(c: Conversation): Obj;
  /**
   * `c` followed by a tool call of the model (`look`), the tool's `result`, and then `after`; absent
   * for a protocol without tools (text completion).
   */
  toolTurn?(c: Conversation, result: string, after?: Msg[]): Obj;
  /** Whether a message can carry an image beside its text (text completion cannot). */
  images: boolean;
  /**
   * Whether a message's text may be a string or a list of text parts, with a cache hint on a part
   * (Chat Completions, Messages, Responses); the others have one form only.
   */
  textShapes: boolean;
  /**
   * The messages of an upstream body, in order, as `{role, content, …}`: roles `system`, `user`,
   * `assistant` (and a protocol's own for tool items), content a string, or a list of parts where a
   * message has more than one text or anything besides text (`{type: "text", text}` for text, other
   * parts as they are).
   */
  messages(raw: string): Obj[];
  /** The user messages of an upstream body, in order. */
  userMessages(raw: string): Obj[];
  /** The body up to the end of its messages, for a body serialised without whitespace. */
  prefix(raw: string): string;
  /**
   * Whether `--inject system` has a place of its own (text completion puts cards where `--inject user`
   * does: not every chat template has a system turn to put them in).
   */
  systemSide: boolean;
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
