/**
 * The protocols the gateway speaks, as the shared suites see them: one descriptor each (protocols/),
 * one row each here. Registering a protocol enrolls it in every suite that runs per protocol
 * (conformance, replay, tiers, clients, fail-open), and its descriptor carries all they need to know
 * of it: bodies, replies, where the system text is, what the model reads.
 */
import { adapterNamed } from "../../src/gateway/index.ts";
import { anthropic } from "./protocols/anthropic.ts";
import { openai } from "./protocols/openai.ts";
import { responses } from "./protocols/responses.ts";
import type { Protocol } from "./protocols/types.ts";

export type { CanonicalBody, Protocol } from "./protocols/types.ts";

export const PROTOCOLS: readonly Protocol[] = [openai, anthropic, responses];

/** The protocol by its name. */
export function protocolNamed(name: Protocol["name"]): Protocol {
  return PROTOCOLS.find((p) => p.name === name)!;
}

/**
 * The protocol of a request path (its query aside), by the paths its adapter injects into; a path of
 * none of them is taken as OpenAI's, the API most clients speak.
 */
export function protocolOf(path: string): Protocol {
  const pathname = path.split("?")[0]!;
  return PROTOCOLS.find((p) => adapterNamed(p.name).paths.includes(pathname)) ?? openai;
}

/**
 * The body up to the end of its message list (`messages`, or a Responses `input` list), before the
 * list's closing `]`, for a body serialised without whitespace.
 */
export function messagesPrefix(raw: string, list: "messages" | "input" = "messages"): string {
  const body = JSON.parse(raw) as Record<string, unknown>;
  const key = `"${list}":`;
  const at = raw.indexOf(key);
  const end = at + key.length + JSON.stringify(body[list]).length - 1;
  if (at === -1 || raw.slice(at + key.length, end + 1) !== JSON.stringify(body[list])) {
    throw new Error("body is not in compact JSON form");
  }
  return raw.slice(0, end);
}
