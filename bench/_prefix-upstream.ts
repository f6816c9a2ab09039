/**
 * A fake model API on 127.0.0.1:0 that bills like the real ones: OpenAI chat completions
 * (`POST /v1/chat/completions`) and Anthropic Messages (`POST /v1/messages`), each answering with the
 * usage its provider's prefix cache would report (bench/_prefix-cache.ts), in that provider's shape.
 * Each API has its own cache, which lives as long as the server: start one per run to start cold.
 * It records every request, and every problem: a body it could not parse or turn into tokens, a
 * request the real API would refuse (answered 400 as the API does), a stream (it answers JSON only).
 */

import {
  anthropicPrompt,
  automaticCache,
  breakpointCache,
  type CacheUsage,
  countTokens,
  openaiPrompt,
  type Prompt,
} from "./_prefix-cache.ts";

export type Api = "openai" | "anthropic";

export interface Seen {
  api: Api;
  /** The body exactly as it arrived. */
  body: string;
  usage: CacheUsage;
}

export interface PrefixUpstream {
  url: string;
  seen: Seen[];
  problems: string[];
  close(): Promise<void>;
}

export interface PrefixUpstreamOptions {
  /** The assistant's reply to the `index`th request of `api` (default "Noted."). */
  reply?: (api: Api, index: number) => string;
  /** The clock of Anthropic's TTLs (default Date.now). */
  now?: () => number;
}

const ROUTES: Record<string, { api: Api; read: (body: unknown) => Prompt }> = {
  "/v1/chat/completions": { api: "openai", read: openaiPrompt },
  "/v1/messages": { api: "anthropic", read: anthropicPrompt },
};

export function startPrefixUpstream(options: PrefixUpstreamOptions = {}): PrefixUpstream {
  const seen: Seen[] = [];
  const problems: string[] = [];
  const caches = { openai: automaticCache(), anthropic: breakpointCache(options.now) };
  const counts = { openai: 0, anthropic: 0 };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const route = req.method === "POST" ? ROUTES[path] : undefined;
      if (!route) {
        problems.push(`${req.method} ${path}: not a chat API this fake answers`);
        return Response.json({ error: { message: "not found" } }, { status: 404 });
      }
      const text = await req.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        problems.push(`${path}: a body that is not JSON`);
        return refuse(route.api, "the body is not JSON");
      }
      const prompt = route.read(body);
      const n = seen.length;
      for (const why of prompt.unreadable) problems.push(`request ${n} (${path}): could not tokenize ${why}`);
      if ((body as { stream?: unknown }).stream === true) {
        problems.push(`request ${n} (${path}): asked for a stream; this fake answers JSON only`);
        return refuse(route.api, "streaming is not simulated");
      }
      if (prompt.refused) {
        problems.push(`request ${n} (${path}): refused: ${prompt.refused}`);
        return refuse(route.api, prompt.refused);
      }
      const usage = caches[route.api].use(prompt);
      seen.push({ api: route.api, body: text, usage });
      const reply = options.reply?.(route.api, counts[route.api]++) ?? "Noted.";
      const output = countTokens(reply);
      return Response.json(
        route.api === "openai" ? openaiAnswer(reply, usage, output) : anthropicAnswer(reply, usage, output),
      );
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    seen,
    problems,
    close: () => server.stop(true),
  };
}

/** OpenAI's `usage`: `prompt_tokens` is the whole prompt, `cached_tokens` the part of it read. */
export function openaiUsage(usage: CacheUsage, output: number) {
  return {
    prompt_tokens: usage.input,
    completion_tokens: output,
    total_tokens: usage.input + output,
    prompt_tokens_details: { cached_tokens: usage.read, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
}

/** Anthropic's `usage`: `input_tokens` is only what was neither read nor written. */
export function anthropicUsage(usage: CacheUsage, output: number) {
  return {
    input_tokens: usage.uncached,
    cache_creation_input_tokens: usage.written["5m"] + usage.written["1h"],
    cache_read_input_tokens: usage.read,
    cache_creation: {
      ephemeral_5m_input_tokens: usage.written["5m"],
      ephemeral_1h_input_tokens: usage.written["1h"],
    },
    output_tokens: output,
  };
}

/** A provider's `usage` object read back into the neutral shape (what a client would see). */
export function readUsage(api: Api, usage: unknown): CacheUsage | null {
  const u = usage as Record<string, unknown> & {
    prompt_tokens_details?: { cached_tokens?: unknown };
    cache_creation?: { ephemeral_5m_input_tokens?: unknown; ephemeral_1h_input_tokens?: unknown };
  };
  if (typeof u !== "object" || u === null) return null;
  if (api === "openai") {
    const input = u.prompt_tokens;
    const read = u.prompt_tokens_details?.cached_tokens;
    if (typeof input !== "number" || typeof read !== "number") return null;
    return { input, read, written: { "5m": 0, "1h": 0 }, uncached: input - read };
  }
  const [uncached, read, created] = [
    u.input_tokens,
    u.cache_read_input_tokens,
    u.cache_creation_input_tokens,
  ];
  if (typeof uncached !== "number" || typeof read !== "number" || typeof created !== "number") return null;
  const long = Number(u.cache_creation?.ephemeral_1h_input_tokens ?? 0);
  return { input: uncached + read + created, read, written: { "5m": created - long, "1h": long }, uncached };
}

function openaiAnswer(reply: string, usage: CacheUsage, output: number): object {
  return {
    id: "chatcmpl-prefix",
    object: "chat.completion",
    created: 1,
    model: "fake-prefix-model",
    choices: [
      { index: 0, message: { role: "assistant", content: reply, refusal: null }, finish_reason: "stop" },
    ],
    usage: openaiUsage(usage, output),
  };
}

function anthropicAnswer(reply: string, usage: CacheUsage, output: number): object {
  return {
    id: "msg_prefix",
    type: "message",
    role: "assistant",
    model: "fake-prefix-model",
    content: [{ type: "text", text: reply }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: anthropicUsage(usage, output),
  };
}

function refuse(api: Api, message: string): Response {
  const error =
    api === "anthropic"
      ? { type: "error", error: { type: "invalid_request_error", message } }
      : { error: { message, type: "invalid_request_error", param: null, code: null } };
  return Response.json(error, { status: 400 });
}
