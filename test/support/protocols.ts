/**
 * The protocols the gateway speaks, as the shared suites see them: one descriptor each (protocols/),
 * one row each here. Registering a protocol enrolls it in every suite that runs per protocol
 * (conformance, replay, tiers, clients, fail-open), and its descriptor carries all they need to know
 * of it: bodies, replies, where the system text is, what the model reads.
 */
import { adapterFor } from "../../src/gateway/index.ts";
import { listPrefix } from "./protocols/_shared.ts";
import { anthropic } from "./protocols/anthropic.ts";
import { completions } from "./protocols/completions.ts";
import { gemini } from "./protocols/gemini.ts";
import { ollama } from "./protocols/ollama.ts";
import { openai } from "./protocols/openai.ts";
import { responses } from "./protocols/responses.ts";
import type { CanonicalBody, Protocol } from "./protocols/types.ts";

export type { CanonicalBody, Protocol } from "./protocols/types.ts";

export const PROTOCOLS: readonly Protocol[] = [openai, anthropic, responses, gemini, ollama, completions];

/** The protocol by its name. */
export function protocolNamed(name: Protocol["name"]): Protocol {
  return PROTOCOLS.find((p) => p.name === name)!;
}

/**
 * The protocol of a request path (its query aside), by the adapter the gateway picks for it; a path
 * of none of them is taken as OpenAI's, the API most clients speak.
 */
export function protocolOf(path: string): Protocol {
  const adapter = adapterFor("POST", path.split("?")[0]!);
  return PROTOCOLS.find((p) => p.name === adapter?.name) ?? openai;
}

/** A request as the model reads it, by its path. */
export function canonicalOf(path: string, body: Record<string, unknown>): CanonicalBody {
  return protocolOf(path).canonical(body);
}

/**
 * The body up to the end of its message list (`messages`, or a Responses `input` list), before the
 * list's closing `]`, for a body serialised without whitespace.
 */
export const messagesPrefix = (raw: string, list: "messages" | "input" = "messages"): string =>
  listPrefix(raw, list);
