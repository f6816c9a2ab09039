/** Host headers: splitting `name:port`, which names only this machine can reach, and none at all. */

import { errorResponse } from "./envelope.ts";

/** `example.org:8766` / `[::1]:8766` → hostname and port (undefined when absent). */
export function splitHost(value: string): { name: string; port?: number } | null {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!m) return null;
  return {
    name: m[1]!.toLowerCase().replace(/\.$/, ""),
    port: m[2] === undefined ? undefined : Number(m[2]),
  };
}

/** Hosts that only this machine can reach. Anything else needs a token. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "");
  if (h === "localhost" || h === "::1" || h.endsWith(".localhost")) return true;
  return /^127(?:\.\d{1,3}){3}$/.test(h) || h === "::ffff:127.0.0.1";
}

/**
 * A request Bun could not give a full URL: HTTP/1.0 without `Host`, or an empty `Host` (RFC 9112 §3.2
 * makes Host mandatory in HTTP/1.1). Its `req.url` is a bare path, and `new URL(req.url)` would throw.
 * Answered 400 here, before any handler sees it.
 */
export function refuseHostless(req: Request): Response | null {
  if (URL.canParse(req.url)) return null;
  return errorResponse("invalid_input", "the request has no Host header; send Host: <name>:<port>");
}
