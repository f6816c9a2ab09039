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
import type { CanonicalBody, Protocol } from "./protocols/types.ts";

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

const GEMINI_PATH = /\/models\/[^/:]+:(generateContent|streamGenerateContent)(\?|$)/;

/**
 * A request as the model reads it, by its path: the Gemini API's `contents` (role and parts, text
 * parts as `text` parts) and `systemInstruction`, or the protocol `protocolOf` finds (Ollama's
 * `/api/chat` reads as Chat Completions does).
 */
export function canonicalOf(path: string, body: Record<string, unknown>): CanonicalBody {
  if (!GEMINI_PATH.test(path)) return protocolOf(path).canonical(body);
  const parts = (content: unknown) =>
    Array.isArray(content)
      ? content.map((p) => (typeof p?.text === "string" && p.thought !== true ? { ...p, type: "text" } : p))
      : content;
  const system = body.systemInstruction as { parts?: unknown } | string | undefined;
  const contents = Array.isArray(body.contents) ? (body.contents as Record<string, unknown>[]) : [];
  return {
    system: typeof system === "string" ? [{ type: "text", text: system }] : (parts(system?.parts) ?? null),
    tools: body.tools ?? null,
    items: contents.map(({ parts: p, ...rest }) => ({ ...rest, content: parts(p) })),
  };
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
