/**
 * The usage tap: what each response says it cost, read on the side without delaying a byte to the
 * client (docs "What it costs"). The upstream body is teed; the client's branch goes out as it
 * came, compressed or not; ours is decompressed when `content-encoding` says so (the proxy never
 * decompresses what it passes on) and scanned as it streams (_usage-scan.ts) for the usage objects
 * the protocol's adapter names (its `UsageShape`: where they sit, what their fields mean), later
 * ones merged over earlier ones (a stream's running totals win).
 * Nothing here can fail the client's stream: a failure on our branch only means no usage. A client
 * that goes away cancels our branch too, once what had arrived is read, so the upstream request is
 * cancelled as before.
 */

import type { Usage } from "../state/index.ts";
import { EventStreamScanner, JsonPathScanner } from "./_usage-scan.ts";

/** How one protocol reports usage: the dotted paths of its usage objects, and what their fields mean. */
export interface UsageShape {
  paths: readonly string[];
  /** A merged usage object as `Usage` (uncached = billed at full price); null when it gives no input count. */
  read(raw: Record<string, unknown>): Usage | null;
}

/** `content-encoding` (RFC 9110 §8.4.1) → Bun's DecompressionStream format. */
const ENCODINGS: Record<string, string> = {
  gzip: "gzip",
  "x-gzip": "gzip",
  deflate: "deflate",
  br: "brotli",
  zstd: "zstd",
};

export interface TapOptions {
  shape: UsageShape;
  /** The upstream response's headers (content type, content encoding). */
  headers: Headers;
  /** The client's request signal: its abort cancels our branch, once what had arrived is read. */
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
 * The usage a body reports, read to its end; null when it reports none, or cannot be read. Never
 * rejects. When `signal` aborts (the client went away), what has arrived is read first and the rest
 * cancelled: a client that hangs up as soon as it has the last event (ollama-js after its `done` line,
 * an SDK after `message_stop`) often does so while that event, which carries the usage, still waits
 * on our branch, and cancelling at once dropped it from `stats`.
 */
export async function usageOf(
  body: ReadableStream<Uint8Array>,
  options: Pick<TapOptions, "shape" | "headers" | "signal">,
): Promise<Usage | null> {
  const format = formatOf(options.headers);
  const usage = new UsageReader(options.shape, isEventStream(options.headers));
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    if (format === undefined) throw new Error("unknown content-encoding");
    const stream =
      format === null ? body : body.pipeThrough(decompressor(format) as ReadableWritablePair<Uint8Array>);
    reader = stream.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const next = options.signal?.aborted ? await arrived(reader) : await reader.read();
      if (next === undefined) {
        void reader.cancel().catch(() => undefined);
        break;
      }
      if (next.done) break;
      usage.write(decoder.decode(next.value, { stream: true }));
    }
  } catch {
    // A broken or cancelled stream, or a body that does not decompress: keep what was found.
    void body.cancel().catch(() => undefined);
  }
  return usage.end();
}

type Read = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;

/**
 * The next chunk if it has arrived already, the end if the stream has ended, else undefined: a chunk
 * waiting in the stream's queue is handed over in a microtask, before a timer of 0 fires.
 */
function arrived(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Read | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), 0);
    reader.read().then(
      (r) => {
        clearTimeout(timer);
        resolve(r);
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
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
    private readonly shape: UsageShape,
    eventStream: boolean,
  ) {
    this.json = new JsonPathScanner(new Set(shape.paths), (value) => this.take(value));
    this.events = eventStream ? new EventStreamScanner(this.json) : null;
  }

  write(text: string): void {
    if (this.events) this.events.write(text);
    else this.json.write(text);
  }

  end(): Usage | null {
    this.events?.end();
    return this.merged && this.shape.read(this.merged);
  }

  private take(value: unknown): void {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return;
    const fields = Object.entries(value).filter(([, v]) => v !== null && v !== undefined);
    this.merged = { ...this.merged, ...Object.fromEntries(fields) };
  }
}

/** A whole count of tokens from a provider's field: anything but a positive number is 0. */
export function tokens(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

/**
 * Usage where the cached tokens are a part of the input count (OpenAI's APIs: `details.cached_tokens`
 * of the input); null without an input count.
 */
export function cachedPartOfInput(input: unknown, details: unknown, output: unknown): Usage | null {
  if (typeof input !== "number") return null;
  const cachedField =
    typeof details === "object" && details !== null ? (details as Record<string, unknown>).cached_tokens : 0;
  const cached = Math.min(tokens(cachedField), tokens(input));
  return { uncached: tokens(input) - cached, cacheRead: cached, cacheWrite: 0, output: tokens(output) };
}
