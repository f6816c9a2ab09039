/**
 * A fake OpenAI + Anthropic upstream on 127.0.0.1:0 that records exactly what it received (method,
 * path, headers, body bytes as text) and answers in each protocol's shape, streaming (SSE) when the
 * body asks for it. A few extra paths exercise the proxy: a gzip body, a redirect, a slow stream, a
 * stream that breaks, one that hangs until the client goes away, a byte counter for huge uploads and
 * a CORS preflight answer. A chat body with `"model": "status-429"` (any status) gets that error; one
 * with `"model": "slow-200"` (any number) streams its Chat Completions answer a chunk every 200 ms.
 */

import { gzipSync } from "node:zlib";

export interface Received {
  method: string;
  path: string;
  search: string;
  headers: Record<string, string>;
  body: string;
}

export interface FakeUpstream {
  url: string;
  received: Received[];
  /** Resolves when a request to /hang has been aborted by the proxy. */
  hangAborted: Promise<void>;
  close(): Promise<void>;
}

export interface FakeUpstreamOptions {
  /** The assistant's reply text for a chat request (default "Noted."). */
  reply?: (body: unknown, index: number) => string;
  /** Milliseconds before each chat answer starts, like a model thinking (default 0). */
  delayMs?: number;
}

const encoder = new TextEncoder();

export function startFakeUpstream(options: FakeUpstreamOptions = {}): FakeUpstream {
  const received: Received[] = [];
  let hangAbortedResolve: () => void = () => {};
  const hangAborted = new Promise<void>((r) => {
    hangAbortedResolve = r;
  });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    async fetch(req) {
      const url = new URL(req.url);
      // `/count` only counts what arrives, so a test can send hundreds of megabytes without keeping them.
      const body = url.pathname === "/count" ? `${await byteCount(req)} bytes` : await req.text();
      received.push({
        method: req.method,
        path: url.pathname,
        search: url.search,
        headers: Object.fromEntries(req.headers.entries()),
        body,
      });
      const index = received.length - 1;
      if (options.delayMs && req.method === "POST") await Bun.sleep(options.delayMs);
      const route = req.method === "POST" ? url.pathname : `${req.method} ${url.pathname}`;
      const failure = failureFor(body);
      if (failure && req.method === "POST") return failure;
      switch (route) {
        case "/v1/chat/completions":
          return openaiReply(body, reply(options, body, index));
        case "/v1/messages":
          return anthropicReply(body, reply(options, body, index));
        case "/v1/responses":
          return responsesReply(body, reply(options, body, index));
        case "GET /gzip":
          return new Response(gzipSync(encoder.encode("compressed hello")), {
            headers: { "content-encoding": "gzip", "content-type": "text/plain" },
          });
        case "GET /redirect":
          return new Response(null, { status: 302, headers: { location: "/elsewhere" } });
        case "GET /slow":
          return sse(["one", "two", "three"], 150);
        case "GET /broken":
          return brokenStream();
        case "GET /hang":
          return hang(req, hangAbortedResolve);
        case "OPTIONS /v1/chat/completions":
          return new Response(null, {
            status: 204,
            headers: {
              "access-control-allow-origin": "*",
              "access-control-allow-methods": "POST",
              "access-control-allow-headers": "authorization, content-type",
            },
          });
        case "PUT /count":
          return new Response(body);
        default:
          return Response.json(
            { method: req.method, path: url.pathname, search: url.search, body },
            { status: 200, headers: { "x-upstream": "yes", connection: "keep-alive" } },
          );
      }
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    hangAborted,
    close: async () => {
      await server.stop(true);
    },
  };
}

/** A chat body whose model is `status-NNN` gets that status and an error body, as a real API answers. */
function failureFor(body: string): Response | null {
  const status = /"model":\s*"status-(\d{3})"/.exec(body)?.[1];
  if (!status) return null;
  return Response.json(
    { type: "error", error: { type: "upstream_error", message: `failing with ${status} as asked` } },
    { status: Number(status), headers: { "retry-after": "7", "x-request-id": "req_fake" } },
  );
}

async function byteCount(req: Request): Promise<number> {
  let n = 0;
  for await (const chunk of req.body ?? []) n += chunk.byteLength;
  return n;
}

function reply(options: FakeUpstreamOptions, body: string, index: number): string {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON: the reply function gets null.
  }
  return options.reply?.(parsed, index) ?? "Noted.";
}

function wantsStream(body: string): boolean {
  try {
    return (JSON.parse(body) as { stream?: unknown }).stream === true;
  } catch {
    return false;
  }
}

function openaiReply(body: string, text: string): Response {
  const base = { id: "chatcmpl-fake", object: "chat.completion", created: 1, model: "fake-model" };
  if (!wantsStream(body)) {
    return Response.json({
      ...base,
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  }
  const chunk = (delta: object, finish: string | null) =>
    JSON.stringify({
      ...base,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const events = [chunk({ role: "assistant", content: "" }, null)];
  for (const piece of pieces(text)) events.push(chunk({ content: piece }, null));
  events.push(chunk({}, "stop"), "[DONE]");
  return sse(events, Number(/"model":\s*"slow-(\d+)"/.exec(body)?.[1] ?? 0));
}

function anthropicReply(body: string, text: string): Response {
  const message = {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model: "fake-model",
    content: [{ type: "text", text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
  if (!wantsStream(body)) return Response.json(message);
  const events: [string, object][] = [
    ["message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null } }],
    [
      "content_block_start",
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ],
    ...pieces(text).map((p): [string, object] => [
      "content_block_delta",
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: p } },
    ]),
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 1 },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ];
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (const [name, data] of events)
        c.enqueue(encoder.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`));
      c.close();
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream" } });
}

/** The Responses API's answer: a response object, or its event stream (named events, typed data). */
function responsesReply(body: string, text: string): Response {
  const part = { type: "output_text", text, annotations: [] };
  const item = { id: "msg_fake", type: "message", role: "assistant", status: "completed", content: [part] };
  const response = {
    id: "resp_fake",
    object: "response",
    created_at: 1,
    status: "completed",
    model: "fake-model",
    output: [item],
    output_text: text,
    usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
  };
  if (!wantsStream(body)) return Response.json(response);
  const started = { ...response, status: "in_progress", output: [], output_text: "" };
  const events: object[] = [
    { type: "response.created", response: started },
    { type: "response.output_item.added", output_index: 0, item: { ...item, content: [] } },
    ...pieces(text).map((delta) => ({
      type: "response.output_text.delta",
      item_id: "msg_fake",
      output_index: 0,
      content_index: 0,
      delta,
    })),
    { type: "response.output_text.done", item_id: "msg_fake", output_index: 0, content_index: 0, text },
    { type: "response.output_item.done", output_index: 0, item },
    { type: "response.completed", response },
  ];
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      events.forEach((data, n) => {
        const type = (data as { type: string }).type;
        c.enqueue(
          encoder.encode(`event: ${type}\ndata: ${JSON.stringify({ ...data, sequence_number: n })}\n\n`),
        );
      });
      c.close();
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream" } });
}

function pieces(text: string): string[] {
  const words = text.split(/(?<= )/);
  return words.length > 0 ? words : [text];
}

function sse(datas: string[], delayMs: number): Response {
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (i >= datas.length) return c.close();
      if (delayMs > 0 && i > 0) await Bun.sleep(delayMs);
      c.enqueue(encoder.encode(`data: ${datas[i++]}\n\n`));
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

function brokenStream(): Response {
  let sent = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (!sent) {
        sent = true;
        c.enqueue(encoder.encode("data: first\n\n"));
        return;
      }
      await Bun.sleep(20);
      c.error(new Error("upstream broke"));
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream" } });
}

function hang(req: Request, onAbort: () => void): Response {
  req.signal.addEventListener("abort", onAbort);
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(encoder.encode("data: waiting\n\n"));
    },
    cancel() {
      onAbort();
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream" } });
}
