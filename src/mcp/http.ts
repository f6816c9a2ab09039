/**
 * MCP over streamable HTTP (MCP spec, "Transports: Streamable HTTP") at `/mcp`, as a plain
 * `fetch(req) → Response` handler. Stateless: each POST gets a fresh server and transport with JSON
 * responses, so nothing is kept between requests and no session can leak. Guards first, as for every
 * HTTP surface here: the Host header (no DNS rebinding on loopback), a cross-site Origin, and the token
 * (required off loopback; `Authorization: Bearer` or `X-Lorecards-Token`, compared in constant time).
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { errorResponse, isLoopbackHost, safeEqual } from "../http/index.ts";
import type { Vault } from "../vault/index.ts";
import { createMcpServer } from "./server.ts";

export const MCP_PATH = "/mcp";

export interface McpHttpOptions {
  vault: Vault;
  version: string;
  /** When set, every request must carry it. */
  token?: string;
  /** True when listening on loopback only: then the Host header must name a loopback host too. */
  loopback: boolean;
}

export function mcpHandler(options: McpHttpOptions): (req: Request) => Promise<Response> {
  return async (req) => {
    const refused = guard(req, options);
    if (refused) return refused;
    if (req.method !== "POST") {
      // Stateless server: no standalone SSE stream to GET, no session to DELETE (spec allows 405).
      return errorResponse(405, "method_not_allowed", "this MCP endpoint takes POST only", { allow: "POST" });
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const server = createMcpServer(options.vault, { version: options.version });
    await server.connect(transport);
    try {
      return await transport.handleRequest(req);
    } finally {
      void server.close();
    }
  };
}

function guard(req: Request, options: McpHttpOptions): Response | undefined {
  const url = new URL(req.url);
  if (url.pathname !== MCP_PATH) return errorResponse(404, "not_found", `the MCP endpoint is ${MCP_PATH}`);
  const host = hostnameOf(req.headers.get("host"));
  if (options.loopback && (host === undefined || !isLoopbackHost(host))) {
    return errorResponse(403, "forbidden", "Host header is not a loopback name");
  }
  const origin = req.headers.get("origin");
  if (origin !== null && !originAllowed(origin, req.headers.get("host"))) {
    return errorResponse(403, "forbidden", `cross-site requests are refused (Origin ${origin})`);
  }
  if (options.token && !tokenGiven(req, options.token)) {
    return errorResponse(
      401,
      "unauthorized",
      "missing or wrong token (Authorization: Bearer … or X-Lorecards-Token)",
      {
        "www-authenticate": 'Bearer realm="lorecards"',
      },
    );
  }
  return undefined;
}

function hostnameOf(host: string | null): string | undefined {
  if (host === null || host === "") return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/** Same origin as the Host the request was sent to, or a page served from this machine. */
function originAllowed(origin: string, host: string | null): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (host !== null && parsed.host === host) return true;
  return isLoopbackHost(parsed.hostname);
}

function tokenGiven(req: Request, token: string): boolean {
  const auth = req.headers.get("authorization");
  const bearer = auth?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  const header = req.headers.get("x-lorecards-token");
  // Both candidates are always compared, so timing does not tell which header was tried.
  const a = safeEqual(bearer ?? "", token);
  const b = safeEqual(header ?? "", token);
  return (bearer !== undefined && a) || (header !== null && b);
}
