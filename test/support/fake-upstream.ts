/**
 * A fake upstream on 127.0.0.1:0 that records exactly what it received (method, path, headers, body
 * bytes as text) and answers a chat request in its protocol's shape (the protocol's descriptor,
 * protocols.ts), streaming (SSE) when the body asks for it. A few extra paths exercise the proxy: a gzip body, a redirect, a slow stream, a
 * stream that breaks, one that hangs until the client goes away, a byte counter for huge uploads and
 * a CORS preflight answer. A chat body with `"model": "status-429"` (any status) gets that error; one
 * with `"model": "slow-200"` (any number) streams its Chat Completions answer a chunk every 200 ms.
 */

import { gzipSync } from "node:zlib";
import { protocolAnswer } from "./protocol-answers.ts";
import { PROTOCOLS } from "./protocols.ts";

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
      const chat = PROTOCOLS.find((p) => p.path === route);
      if (chat) return chat.reply(body, reply(options, body, index));
      const other =
        req.method === "POST" && protocolAnswer(url.pathname, url.search, body, reply(options, body, index));
      if (other) return other;
      switch (route) {
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
        // For a test whose upstream runs in another process (fake-upstream-process.ts).
        case "GET /received/last":
          return new Response(received.findLast((r) => r.method === "POST")?.body ?? "");
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
