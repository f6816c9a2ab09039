/**
 * One server, many tenants: a `fetch(req) → Response` in front of each tenant's own surface (the
 * gateway, the editor's API, MCP over HTTP). A request names its tenant by its token alone, or by a
 * path prefix `/t/NAME/` and its token, which must then be that tenant's; the prefix is taken off
 * before the tenant's surface sees the request. What a request can learn of another tenant is
 * nothing: an unknown name, a wrong token and another tenant's token with this name all get the same
 * 401 (and count against the address, as wrong tokens do everywhere), so names cannot be probed; and
 * the tenant's surface is opened over that tenant's vault and state only (pool.ts), so no card,
 * conversation or hit log of another is within its reach. A name in the prefix is checked as written,
 * before any decoding, so `%2F` or `..` never reach a tenant's surface as a path.
 */
import {
  clientAddress,
  errorResponse,
  type GuardRules,
  guardRequest,
  isPreflight,
  type Peer,
  type Throttle,
  type TokenHeader,
} from "../http/index.ts";
import { TENANT_NAME } from "./_parse.ts";
import type { TenantPool } from "./pool.ts";
import { RateLimits } from "./rate.ts";
import type { TenantRegistry } from "./registry.ts";

export const TENANT_PREFIX = "/t/";

export interface RouterOptions {
  registry: TenantRegistry;
  pool: TenantPool;
  /** The surface's Host and cross-site rules, without a token (the router finds the tenant by it). */
  guard: GuardRules;
  /** Where the surface takes its token from. */
  tokenHeaders: readonly TokenHeader[];
  throttle?: Throttle;
  /** Answers what may go without a tenant (the gateway passes a CORS preflight on); else 401. */
  anonymous?(req: Request): Promise<Response> | null;
  now?: () => number;
}

/** `/t/NAME/rest` → the name as written and `/rest`; null when the path has no tenant prefix. */
export function splitTenantPath(pathname: string): { name: string; rest: string } | null {
  if (!pathname.startsWith(TENANT_PREFIX)) return null;
  const end = pathname.indexOf("/", TENANT_PREFIX.length);
  const name = pathname.slice(TENANT_PREFIX.length, end === -1 ? undefined : end);
  return { name, rest: end === -1 ? "/" : pathname.slice(end) };
}

function givenToken(req: Request, headers: readonly TokenHeader[]): string | null {
  for (const h of headers) {
    const value = req.headers.get(h);
    if (value === null) continue;
    if (h !== "authorization") return value.trim();
    const m = /^Bearer\s+(\S+)\s*$/i.exec(value);
    if (m) return m[1]!;
  }
  return null;
}

/** The request as the tenant's surface gets it: the prefix taken off, everything else as it came. */
function withoutPrefix(req: Request, url: URL, rest: string): Request {
  const inner = new URL(url);
  inner.pathname = rest;
  return new Request(inner, {
    method: req.method,
    headers: req.headers,
    body: req.body,
    signal: req.signal,
    // @ts-expect-error Bun and the Fetch standard need `duplex` for a streamed body
    duplex: "half",
    redirect: "manual",
  });
}

export function tenantRouter(options: RouterOptions): (req: Request, peer?: Peer) => Promise<Response> {
  const rates = new RateLimits(options.now);
  const names = options.tokenHeaders
    .map((h) => (h === "authorization" ? "Authorization: Bearer …" : "X-Lorecards-Token"))
    .join(" or ");
  const refuse = (address: string, counted: boolean) => {
    if (counted) options.throttle?.fail(address);
    return errorResponse("unauthorized", `missing or wrong token (${names})`);
  };
  let sinceKeep = 0;
  return async (req, peer) => {
    const address = clientAddress(req, peer);
    const refused = guardRequest(req, options.guard, address);
    if (refused) return refused;
    if (options.guard.preflight === "pass" && isPreflight(req)) {
      const answer = options.anonymous?.(req);
      if (answer) return answer;
    }
    const url = new URL(req.url);
    const prefix = splitTenantPath(url.pathname);
    if (prefix && !TENANT_NAME.test(prefix.name.toLowerCase()))
      return errorResponse("not_found", `no such path: ${url.pathname.slice(0, 200)}`);
    const slowed = options.throttle?.refuse(address);
    if (slowed) return slowed;
    const token = givenToken(req, options.tokenHeaders);
    if (token === null || token === "") return refuse(address, false);
    const tenant = options.registry.byToken(token);
    if (!tenant || (prefix && prefix.name.toLowerCase() !== tenant.name)) return refuse(address, true);
    const wait = rates.take(tenant.name, tenant.limits.requestsPerMinute);
    if (wait > 0)
      return errorResponse(
        "rate_limited",
        `over ${tenant.limits.requestsPerMinute} requests a minute; try again in ${wait} s`,
        {
          headers: { "retry-after": String(wait) },
        },
      );
    if (++sinceKeep >= 1000) {
      sinceKeep = 0;
      rates.keepOnly((n) => options.registry.named(n) !== undefined);
    }
    const inner = prefix ? withoutPrefix(req, url, prefix.rest) : req;
    return options.pool.use(tenant, (server) => server.fetch(inner, peer));
  };
}
