/**
 * MCP over streamable HTTP (MCP spec, "Transports: Streamable HTTP") at `/mcp`, as a plain
 * `fetch(req) → Response` handler. Stateless: each POST gets a fresh server and transport with JSON
 * responses, so nothing is kept between requests and no session can leak. http/'s guards first, as for
 * every HTTP surface here: the Host header (no DNS rebinding on loopback), a cross-site Origin, and the
 * token (required off loopback; `Authorization: Bearer` or `X-Lorecards-Token`, with the throttle).
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  clientAddress,
  createThrottle,
  errorResponse,
  type GuardRules,
  guardRequest,
  type Peer,
  type Throttle,
} from "../http/index.ts";
import type { StyleOptions } from "../style/index.ts";
import type { Vault } from "../vault/index.ts";
import type { ServedBook } from "./books.ts";
import { createMcpServer } from "./server.ts";
import { type McpState, vaultState } from "./state.ts";

export const MCP_PATH = "/mcp";

export interface McpHttpOptions {
  vault: Vault;
  version: string;
  /** When set, every request must carry it. */
  token?: string;
  /** True when listening on loopback only: then the Host header must name a loopback host too. */
  loopback: boolean;
  /** Slows down wrong tokens per address; with a token and none given, http/'s defaults. */
  throttle?: Throttle;
  /** Where adoptions and lore switches go; the vault's state.db by default, one store for every request. */
  state?: McpState;
  /** Style memory's options (its clock). */
  style?: StyleOptions;
  /** The book `vault` is, when one was named (`--book`; books.ts). */
  book?: ServedBook;
}

export function mcpHandler(options: McpHttpOptions): (req: Request, peer?: Peer) => Promise<Response> {
  const rules: GuardRules = {
    // Off loopback any name may reach the server, and the token keeps strangers out.
    loopback: options.loopback,
    crossSite: "refuse",
    // A client page served from this machine (an MCP inspector on localhost) is not a stranger.
    loopbackPages: true,
    token: options.token,
    tokenHeaders: ["authorization", "x-lorecards-token"],
    throttle: options.token ? (options.throttle ?? createThrottle()) : undefined,
  };
  const state = options.state ?? vaultState(options.vault, options.book);
  return async (req, peer) => {
    if (new URL(req.url).pathname !== MCP_PATH) {
      return errorResponse("not_found", `the MCP endpoint is ${MCP_PATH}`);
    }
    const refused = guardRequest(req, rules, clientAddress(req, peer));
    if (refused) return refused;
    if (req.method !== "POST") {
      // Stateless server: no standalone SSE stream to GET, no session to DELETE (the MCP spec allows 405).
      return errorResponse("method_not_allowed", "this MCP endpoint takes POST only", {
        headers: { allow: "POST" },
      });
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const server = createMcpServer(options.vault, {
      version: options.version,
      state,
      style: options.style,
      book: options.book,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(req);
    } finally {
      void server.close();
    }
  };
}
