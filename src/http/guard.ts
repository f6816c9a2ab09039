/**
 * The guards in front of every HTTP surface (the gateway, the editor's API, MCP over HTTP): one rule each,
 * in this order, with what differs between surfaces as options.
 * - Host (DNS rebinding): a page on `evil.example` can re-point that name at 127.0.0.1, and its requests
 *   then carry `Host: evil.example`. With `hosts`, the Host must be one of those names, or any loopback
 *   name with `loopback`, and with `port` it must name that port (80 when it names none).
 * - Cross-site (a page in the browser sending the request): `Sec-Fetch-Site: cross-site|same-site`
 *   (Fetch Metadata), or an Origin that is opaque ("null") or not this very host. `crossSite: "refuse"`
 *   refuses such a request; `"json"` refuses it only when it has a body that is not JSON, since a JSON
 *   body is not CORS-safelisted (Fetch standard) and a browser sends it only after a preflight that the
 *   other side answers. With `loopbackPages`, a page served from this machine is not cross-site.
 * - Token: compared in constant time (token.ts), taken from `Authorization: Bearer` and/or
 *   `X-Lorecards-Token`. With a throttle, an address that sent too many wrong tokens is answered 429 for
 *   a while; a request with no token at all is not counted, so a client that forgot it is not a guesser.
 * - Writes: with `writeHeader`, a method other than GET and HEAD must carry `X-Lorecards: 1`, a header
 *   no cross-site form can add without a preflight.
 * - Preflight: `"refuse"` answers every OPTIONS 405 (no CORS preflight is answered, so no cross-origin
 *   request follows); `"pass"` lets a CORS preflight by without a token (it cannot carry one, has no
 *   body and reaches no card), for a surface that forwards it.
 */

import { errorResponse } from "./envelope.ts";
import { isLoopbackHost, splitHost } from "./host.ts";
import type { Throttle } from "./throttle.ts";
import { safeEqual } from "./token.ts";

export type TokenHeader = "authorization" | "x-lorecards-token";

export interface GuardRules {
  /** Host names (no port) this server answers to; without it, any Host is served. */
  hosts?: readonly string[];
  /** Any loopback name (localhost, 127.0.0.1, ::1, *.localhost) is served too. */
  loopback?: boolean;
  /** The port the Host header must name. */
  port?: number;
  /** Said after a refused Host, e.g. which flag adds a name. */
  hostHint?: string;
  crossSite?: "refuse" | "json";
  loopbackPages?: boolean;
  /** When set (and not empty), every request needs it. */
  token?: string;
  /** Where the token may be; default `authorization` (a Bearer token). */
  tokenHeaders?: readonly TokenHeader[];
  throttle?: Throttle;
  writeHeader?: boolean;
  preflight?: "refuse" | "pass";
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/** A refusal, or null when the request may go on. `address` is the client's, for the throttle. */
export function guardRequest(req: Request, rules: GuardRules, address = "unknown"): Response | null {
  if (rules.preflight === "refuse" && req.method === "OPTIONS") {
    return errorResponse(
      "method_not_allowed",
      "cross-origin requests are not served (no CORS preflight is answered)",
    );
  }
  const host = req.headers.get("host") ?? new URL(req.url).host;
  if (!hostServed(host, rules)) {
    const hint = rules.hostHint ? ` (${rules.hostHint})` : "";
    return errorResponse("forbidden", `this server does not serve the host "${host}"${hint}`);
  }
  if (rules.crossSite !== undefined && isCrossSite(req, host, rules.loopbackPages === true)) {
    if (rules.crossSite === "refuse")
      return errorResponse("forbidden", "requests from another site are refused");
    if (hasBody(req) && !isJson(req)) {
      return errorResponse(
        "forbidden",
        "a cross-site request from a browser must be JSON (Content-Type: application/json)",
      );
    }
  }
  if (rules.preflight === "pass" && isPreflight(req)) return null;
  const refused = refuseToken(req, rules, address);
  if (refused) return refused;
  if (rules.writeHeader && !SAFE_METHODS.has(req.method) && req.headers.get("x-lorecards") !== "1") {
    // Said of every method but GET and HEAD: /api/try writes nothing, yet needs it too.
    return errorResponse(
      "forbidden",
      `${req.method} requests must carry the header X-Lorecards: 1 (no page of another site can add it)`,
    );
  }
  return null;
}

/** A CORS preflight (Fetch standard, "CORS-preflight request"): OPTIONS naming the method to come. */
export function isPreflight(req: Request): boolean {
  return req.method === "OPTIONS" && req.headers.has("access-control-request-method");
}

function hostServed(header: string, rules: GuardRules): boolean {
  if (rules.hosts === undefined && !rules.loopback) return true;
  const host = splitHost(header);
  if (host === null) return false;
  const name = host.name.replace(/^\[|\]$/g, "");
  const named =
    (rules.loopback === true && isLoopbackHost(name)) ||
    (rules.hosts ?? []).some((h) => h.replace(/^\[|\]$/g, "").toLowerCase() === name);
  return named && (rules.port === undefined || (host.port ?? 80) === rules.port);
}

function isCrossSite(req: Request, host: string, loopbackPages: boolean): boolean {
  const origin = req.headers.get("origin");
  const from = origin === null ? null : originUrl(origin);
  if (loopbackPages && from !== null && isLoopbackHost(from.hostname)) return false;
  const site = req.headers.get("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") return true;
  if (origin === null) return false;
  // "null" (sandboxed frames, file://) and garbage are never this server.
  return from === null || from.host.toLowerCase() !== host.toLowerCase();
}

function originUrl(origin: string): URL | null {
  try {
    return new URL(origin);
  } catch {
    return null;
  }
}

function hasBody(req: Request): boolean {
  return req.method !== "GET" && req.method !== "HEAD" && req.method !== "OPTIONS";
}

function isJson(req: Request): boolean {
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || type.endsWith("+json");
}

const HEADER_NAMES: Record<TokenHeader, string> = {
  authorization: "Authorization: Bearer …",
  "x-lorecards-token": "X-Lorecards-Token",
};

function refuseToken(req: Request, rules: GuardRules, address: string): Response | null {
  if (rules.token === undefined || rules.token === "") return null;
  const slowed = rules.throttle?.refuse(address);
  if (slowed) return slowed;
  const headers = rules.tokenHeaders ?? ["authorization"];
  const given = headers.map((h) => (h === "authorization" ? bearer(req) : req.headers.get(h)));
  // Every candidate is compared, so the time taken does not tell which header was tried.
  const matches = given.map((g) => safeEqual(g ?? "", rules.token!));
  if (given.some((g, i) => g !== null && matches[i])) return null;
  if (given.some((g) => g !== null)) rules.throttle?.fail(address);
  // RFC 6750 §3: a resource that takes Bearer tokens says so in WWW-Authenticate.
  const challenge = headers.includes("authorization")
    ? { "www-authenticate": 'Bearer realm="lorecards"' }
    : undefined;
  const names = headers.map((h) => HEADER_NAMES[h]).join(" or ");
  return errorResponse("unauthorized", `missing or wrong token (${names})`, { headers: challenge });
}

function bearer(req: Request): string | null {
  const value = req.headers.get("authorization");
  const m = value === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(value);
  return m ? m[1]! : null;
}
