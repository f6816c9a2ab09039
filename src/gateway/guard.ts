/**
 * Browsers and a gateway on loopback. With an upstream that needs no key (a model server on the same
 * machine), any page the user opens could otherwise talk to the gateway and read card text back:
 * - DNS rebinding: a page on `evil.example` re-points that name at 127.0.0.1, and its requests then
 *   carry `Host: evil.example`. On loopback only loopback names (and `--allow-host`) are served.
 * - Simple cross-site requests: a `text/plain` or form POST needs no CORS preflight (Fetch standard,
 *   "CORS-safelisted request-header"), so the gateway would read it as a chat. A cross-site request
 *   must be JSON, which a browser only sends after a preflight that the upstream answers.
 * SDKs and CLIs send no `Origin` and a loopback `Host`, so they never meet either rule.
 */

import { errorResponse, isLoopbackHost, splitHost } from "../http/index.ts";

export interface GuardOptions {
  /** Host names besides loopback ones this gateway answers to (a reverse proxy's, a LAN name). */
  allowHosts: readonly string[];
}

/** A refusal, or null when the request may go on. */
export function refuseBrowserAbuse(req: Request, opts: GuardOptions): Response | null {
  const host = req.headers.get("host") ?? new URL(req.url).host;
  const name = splitHost(host)?.name.replace(/^\[|\]$/g, "");
  if (name === undefined || !(isLoopbackHost(name) || opts.allowHosts.includes(name))) {
    return errorResponse(
      403,
      "forbidden",
      `this gateway does not serve the host "${host}" (see --allow-host)`,
    );
  }
  if (isCrossSite(req, host) && hasBody(req) && !isJson(req)) {
    return errorResponse(
      403,
      "forbidden",
      "a cross-site request from a browser must be JSON (Content-Type: application/json)",
    );
  }
  return null;
}

function isCrossSite(req: Request, host: string): boolean {
  const site = req.headers.get("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") return true;
  const origin = req.headers.get("origin");
  if (origin === null) return false;
  try {
    return new URL(origin).host.toLowerCase() !== host.toLowerCase();
  } catch {
    return true; // "null" (sandboxed frames, file://) is never this gateway
  }
}

function hasBody(req: Request): boolean {
  return req.method !== "GET" && req.method !== "HEAD" && req.method !== "OPTIONS";
}

function isJson(req: Request): boolean {
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || type.endsWith("+json");
}
