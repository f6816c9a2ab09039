/**
 * The usage tap: what each response says it cost, read on the side without delaying a byte to the
 * client (README "What it costs"). The upstream body is teed; the client's branch goes out as it
 * came, compressed or not; ours is decompressed when `content-encoding` says so (the proxy never
 * decompresses what it passes on) and scanned as it streams (_usage-scan.ts) for the usage each API
 * reports:
 * - Anthropic Messages: `usage` {input_tokens, cache_read_input_tokens, cache_creation_input_tokens,
 *   output_tokens}; streamed, in `message_start` (`message.usage`) then `message_delta` (`usage`, the
 *   totals so far, which win);
 * - OpenAI chat completions: `usage` {prompt_tokens, prompt_tokens_details.cached_tokens,
 *   completion_tokens}; streamed, only in the last chunk and only when the client asked for it
 *   (`stream_options.include_usage`: the gateway never adds it);
 * - OpenAI Responses: `usage` {input_tokens, input_tokens_details.cached_tokens, output_tokens};
 *   streamed, in `response.completed` (`response.usage`).
 * Nothing here can fail the client's stream: a failure on our branch only means no usage. A client
 * that goes away cancels our branch too, so the upstream request is cancelled as before.
 */

import type { Usage } from "../state/index.ts";
import { EventStreamScanner, JsonPathScanner } from "./_usage-scan.ts";

export type UsageApi = "openai" | "anthropic" | "responses";

const PATHS = new Set(["usage", "message.usage", "response.usage"]);

/** `content-encoding` (RFC 9110 §8.4.1) → Bun's DecompressionStream format. */
const ENCODINGS: Record<string, string> = {
  gzip: "gzip",
  "x-gzip": "gzip",
  deflate: "deflate",
  br: "brotli",
  zstd: "zstd",
};

export interface TapOptions {
  api: UsageApi;
  /** The upstream response's headers (content type, content encoding). */
  headers: Headers;
  /** The client's request signal: its abort cancels our branch. */
  signal?: AbortSignal;
  /** Called once, after the body ended (or broke), when any usage was found. */
  onUsage(usage: Usage): void;
}

/** The client's branch of `body`; our branch is read in the background. */
export function tapUsage(body: ReadableStream<Uint8Array>, options: TapOptions): ReadableStream<Uint8Array> {
  if (formatOf(options.headers) === undefined) return body; // an encoding we cannot read: measure nothing
  const [client, ours] = body.tee();
  void usageOf(ours, options).then((usage) => report(usage, options.onUsage));
  return client;
}

/** `content-encoding` → the decompression format; null for none, undefined for one we cannot read. */
function formatOf(headers: Headers): string | null | undefined {
  const encoding = (headers.get("content-encoding") ?? "").trim().toLowerCase();
  return encoding === "" || encoding === "identity" ? null : ENCODINGS[encoding];
}

/**
 * The usage a body reports, read to its end (or until `signal` aborts, which cancels it); null when
 * it reports none, or cannot be read. Never rejects.
 */
export async function usageOf(
  body: ReadableStream<Uint8Array>,
  options: Pick<TapOptions, "api" | "headers" | "signal">,
): Promise<Usage | null> {
  const format = formatOf(options.headers);
  const usage = new UsageReader(options.api, isEventStream(options.headers));
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const stop = () => void reader?.cancel().catch(() => undefined);
  try {
    if (format === undefined) throw new Error("unknown content-encoding");
    const stream =
      format === null ? body : body.pipeThrough(decompressor(format) as ReadableWritablePair<Uint8Array>);
    reader = stream.getReader();
    if (options.signal?.aborted) stop();
    options.signal?.addEventListener("abort", stop, { once: true });
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      usage.write(decoder.decode(value, { stream: true }));
    }
  } catch {
    // A broken or cancelled stream, or a body that does not decompress: keep what was found.
    void body.cancel().catch(() => undefined);
  } finally {
    options.signal?.removeEventListener("abort", stop);
  }
  return usage.end();
}

/** Bun's DecompressionStream takes "brotli" and "zstd" besides the standard formats. */
function decompressor(format: string): DecompressionStream {
  return new DecompressionStream(format as CompressionFormat);
}

function report(usage: Usage | null, onUsage: (usage: Usage) => void): void {
  if (usage === null) return;
  try {
    onUsage(usage);
  } catch {
    // The caller's to report; never ours to throw.
  }
}

function isEventStream(headers: Headers): boolean {
  return (headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
}

/** Usage from a body fed in pieces (JSON, or an event stream); merged, later fields winning. */
export class UsageReader {
  private merged: Record<string, unknown> | null = null;
  private readonly json: JsonPathScanner;
  private readonly events: EventStreamScanner | null;

  constructor(
    private readonly api: UsageApi,
    eventStream: boolean,
  ) {
    this.json = new JsonPathScanner(PATHS, (value) => this.take(value));
    this.events = eventStream ? new EventStreamScanner(this.json) : null;
  }

  write(text: string): void {
    if (this.events) this.events.write(text);
    else this.json.write(text);
  }

  end(): Usage | null {
    this.events?.end();
    return this.merged && normalizeUsage(this.api, this.merged);
  }

  private take(value: unknown): void {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return;
    const fields = Object.entries(value).filter(([, v]) => v !== null && v !== undefined);
    this.merged = { ...this.merged, ...Object.fromEntries(fields) };
  }
}

/** A provider's usage object as `Usage` (uncached = billed at full price); null when it gives no input count. */
export function normalizeUsage(api: UsageApi, raw: Record<string, unknown>): Usage | null {
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
  const has = (v: unknown) => typeof v === "number";
  const detail = (v: unknown, key: string) =>
    typeof v === "object" && v !== null ? n((v as Record<string, unknown>)[key]) : 0;
  if (api === "anthropic") {
    const { input_tokens, cache_read_input_tokens, cache_creation_input_tokens } = raw;
    if (!has(input_tokens) && !has(cache_read_input_tokens) && !has(cache_creation_input_tokens)) return null;
    return {
      uncached: n(input_tokens),
      cacheRead: n(cache_read_input_tokens),
      cacheWrite: n(cache_creation_input_tokens),
      output: n(raw.output_tokens),
    };
  }
  const [input, details, output] =
    api === "openai"
      ? [raw.prompt_tokens, raw.prompt_tokens_details, raw.completion_tokens]
      : [raw.input_tokens, raw.input_tokens_details, raw.output_tokens];
  if (!has(input)) return null;
  const cached = Math.min(detail(details, "cached_tokens"), n(input));
  return { uncached: n(input) - cached, cacheRead: cached, cacheWrite: 0, output: n(output) };
}
