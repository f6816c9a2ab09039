/**
 * The chat protocols the gateway speaks: one adapter file each, one row each here. Everything that
 * differs between protocols is in its adapter (_chat.ts `Adapter`: its paths, the view of a body,
 * where cards go, how usage is reported, its caching); the rest of the gateway, the turn records and
 * `stats` know a protocol only through this list and the names it gives (docs/ARCHITECTURE.md,
 * "Adding a protocol").
 */
import type { Adapter } from "./_chat.ts";
import { anthropicAdapter } from "./anthropic.ts";
import { completionsAdapter } from "./completions.ts";
import { geminiAdapter } from "./gemini.ts";
import { ollamaAdapter } from "./ollama.ts";
import { openaiAdapter } from "./openai.ts";
import { responsesAdapter } from "./responses.ts";

export const ADAPTERS = [
  openaiAdapter,
  anthropicAdapter,
  responsesAdapter,
  geminiAdapter,
  ollamaAdapter,
  completionsAdapter,
] as const;

/** The name of a protocol the gateway speaks, as a turn record keeps it. */
export type ApiName = (typeof ADAPTERS)[number]["name"];

/** The adapter of a chat request, or undefined for a request the gateway passes through untouched. */
export function adapterFor(method: string, pathname: string): Adapter<ApiName> | undefined {
  if (method !== "POST") return undefined;
  return ADAPTERS.find((a) => a.paths.includes(pathname) || a.matches?.(pathname) === true);
}

/** The adapter of a protocol by its name. */
export function adapterNamed(name: ApiName): Adapter<ApiName> {
  return ADAPTERS.find((a) => a.name === name)!;
}
