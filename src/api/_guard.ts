/**
 * The guards in front of every `/api/*` request (spec "Web UI"): the `Host` header must name this
 * server (a rebound DNS name cannot reach it), a cross-site `Origin` is refused, writes carry
 * `X-Lorecards: 1` (a header no cross-site form can add without a preflight, which is never answered),
 * and with a token, `Authorization: Bearer <token>` is compared in constant time. An address that sent
 * too many wrong tokens is answered 429 for a while (http/ `createThrottle`); a request with no token
 * at all (the page opened without its `?token=` link) is not counted, so it cannot lock its user out.
 */
import { errorResponse, safeEqual, splitHost, type Throttle } from "../http/index.ts";

export interface GuardOptions {
  /** Host names (no port) this server answers to, lower case. */
  hosts: readonly string[];
  /** The port the server listens on; a Host header naming another port is refused. */
  port?: number;
  token?: string;
  /** Counts wrong tokens per address; only used with a token. */
  throttle?: Throttle;
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

function hostAllowed(req: Request, opts: GuardOptions): boolean {
  const header = req.headers.get("host");
  if (header === null) return false;
  const host = splitHost(header);
  if (host === null) return false;
  const name = host.name.replace(/^\[|\]$/g, "");
  if (!opts.hosts.some((h) => h.replace(/^\[|\]$/g, "").toLowerCase() === name)) return false;
  return opts.port === undefined || (host.port ?? 80) === opts.port;
}

/** Same-site means: the page that sent the request was served by this very host and port. */
function originAllowed(req: Request): boolean {
  const fetchSite = req.headers.get("sec-fetch-site");
  if (fetchSite === "cross-site" || fetchSite === "same-site") return false;
  const origin = req.headers.get("origin");
  if (origin === null) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file://) and garbage are never this server
  }
  return url.host.toLowerCase() === (req.headers.get("host") ?? "").toLowerCase();
}

function bearer(req: Request): string | null {
  const value = req.headers.get("authorization");
  const m = value === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(value);
  return m ? m[1]! : null;
}

/** A refusal, or null when the request may proceed. `address` is the client's, for the throttle. */
export function guard(req: Request, opts: GuardOptions, address = "unknown"): Response | null {
  if (req.method === "OPTIONS") {
    return errorResponse(
      405,
      "forbidden",
      "cross-origin requests are not served (no CORS preflight is answered)",
    );
  }
  if (!hostAllowed(req, opts)) {
    return errorResponse(
      403,
      "forbidden",
      `this server does not serve the host "${req.headers.get("host") ?? ""}"`,
    );
  }
  if (!originAllowed(req)) return errorResponse(403, "forbidden", "requests from another site are refused");
  if (opts.token !== undefined && opts.token !== "") {
    const slowed = opts.throttle?.refuse(address);
    if (slowed) return slowed;
    const given = bearer(req);
    if (given === null || !safeEqual(given, opts.token)) {
      if (given !== null) opts.throttle?.fail(address);
      return errorResponse(401, "unauthorized", "missing or wrong Authorization: Bearer token", {
        "www-authenticate": 'Bearer realm="lorecards"',
      });
    }
  }
  if (!SAFE_METHODS.has(req.method) && req.headers.get("x-lorecards") !== "1") {
    return errorResponse(403, "forbidden", "writes must carry the header X-Lorecards: 1");
  }
  return null;
}
