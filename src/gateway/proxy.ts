/**
 * Passing requests and responses through. Hop-by-hop headers are dropped in both directions (RFC 9110
 * §7.6.1, including any named in `Connection`), as are our own `X-Lorecards-*` request headers, so the
 * token never reaches the upstream. Bodies are never decompressed (`decompress: false`: otherwise Bun
 * would inflate while `content-encoding` still says gzip), redirects go back to the client, and the
 * client's abort signal is the upstream request's, so a closed client stops the upstream too. A
 * successful answer's body may be tapped (`tap`: the usage reader, _usage.ts), which reads a copy and
 * hands the client its bytes as they come.
 */

import { describeError } from "../errors.ts";
import { errorResponse } from "../http/index.ts";

const HOP_BY_HOP = [
  "connection",
  "proxy-connection",
  "keep-alive",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "proxy-authenticate",
  "proxy-authorization",
];

export const INJECTED_HEADER = "x-lorecards-injected";

function withoutHopByHop(source: Headers): Headers {
  const out = new Headers(source);
  const listed = (source.get("connection") ?? "").split(",").map((s) => s.trim().toLowerCase());
  for (const name of [...HOP_BY_HOP, ...listed]) if (name) out.delete(name);
  return out;
}

export function requestHeaders(source: Headers, bodyReplaced: boolean): Headers {
  const out = withoutHopByHop(source);
  out.delete("host");
  for (const name of [...out.keys()]) if (name.startsWith("x-lorecards-")) out.delete(name);
  if (bodyReplaced) out.delete("content-length");
  return out;
}

export function responseHeaders(source: Headers, injected: readonly string[]): Headers {
  const out = withoutHopByHop(source);
  if (injected.length > 0) {
    out.set(INJECTED_HEADER, injected.map(encodeKey).join(","));
    // A browser client may read only the response headers CORS exposes (Fetch standard, "CORS-safelisted
    // response-header name"): when the upstream answers cross-origin requests, expose ours too.
    if (out.has("access-control-allow-origin")) exposeHeader(out, INJECTED_HEADER);
  }
  return out;
}

function exposeHeader(headers: Headers, name: string): void {
  const listed = headers.get("access-control-expose-headers");
  const names = (listed ?? "").split(",").map((s) => s.trim().toLowerCase());
  if (names.includes("*") || names.includes(name)) return;
  headers.set("access-control-expose-headers", listed ? `${listed}, ${name}` : name);
}

/** Header values are ASCII: percent-encode anything else (a Chinese card name), and `%` and `,`. */
export function encodeKey(key: string): string {
  return key.replace(/[^\x20-\x24\x26-\x2b\x2d-\x7e]/gu, (c) =>
    Array.from(new TextEncoder().encode(c), (b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(
      "",
    ),
  );
}

/**
 * `--upstream` joined with the request's path and query. The upstream may carry a base path. Many
 * providers publish their base URL with `/v1` (`https://api.openai.com/v1`) while clients already
 * send `/v1/…`: given both, the `/v1` is not doubled.
 */
export function upstreamUrl(upstream: URL, req: URL): string {
  const base = upstream.pathname.replace(/\/+$/, "");
  const path = base.endsWith("/v1") && req.pathname.startsWith("/v1/") ? req.pathname.slice(3) : req.pathname;
  return `${upstream.origin}${base}${path}${req.search}`;
}

export interface ForwardInput {
  url: string;
  req: Request;
  /** The replacement body, or undefined to pass the client's body through untouched. */
  body?: BodyInit;
  bodyReplaced: boolean;
  injected: readonly string[];
  fetch: typeof fetch;
  /** Given a 2xx answer's body and headers, returns the body the client gets (byte for byte the same). */
  tap?: (body: ReadableStream<Uint8Array>, headers: Headers) => ReadableStream<Uint8Array>;
  /** The request's state being committed: the answer ends only once it has (pipeline.ts `record`). */
  durable?: Promise<void>;
}

export async function forward(input: ForwardInput): Promise<Response> {
  const { req } = input;
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  let up: Response;
  try {
    up = await input.fetch(input.url, {
      method: req.method,
      headers: requestHeaders(req.headers, input.bodyReplaced),
      body: hasBody ? (input.body ?? req.body) : undefined,
      decompress: false,
      redirect: "manual",
      signal: req.signal,
    } as RequestInit);
  } catch (err) {
    if (req.signal.aborted) return new Response(null, { status: 499 });
    const detail = `upstream ${new URL(input.url).origin} unreachable: ${describeError(err)}`;
    return errorResponse("bad_gateway", detail);
  }
  const tapped = input.tap && up.ok && up.body ? input.tap(up.body, up.headers) : up.body;
  const body = await endingAfter(tapped, input.durable);
  return new Response(body, {
    status: up.status,
    statusText: up.statusText,
    headers: responseHeaders(up.headers, input.injected),
  });
}

/**
 * `body` ending only once `durable` has settled. Mostly it has by the time the upstream answers, and
 * the body goes out as it is; otherwise its last chunk waits (a body-less answer waits here).
 */
async function endingAfter(
  body: ReadableStream<Uint8Array> | null,
  durable: Promise<void> | undefined,
): Promise<ReadableStream<Uint8Array> | null> {
  if (durable === undefined || settled.has(durable)) return body;
  if (body === null) {
    await durable;
    return body;
  }
  return body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: () => durable }));
}

/** Promises seen settled: a commit is mostly done before the upstream answers. */
const settled = new WeakSet<Promise<void>>();

/** Marks `durable` in `settled` when it settles; returns it. */
export function watchSettled(durable: Promise<void>): Promise<void> {
  void durable.then(() => settled.add(durable));
  return durable;
}
