/**
 * mcp/ owns `lorecards mcp`: the tools an agent uses to *write* cards (write_card, read_card,
 * list_cards) over the official MCP SDK, on stdio or streamable HTTP. It never recalls or injects:
 * surfacing is the gateway's and the hook's job, because a model that must decide to look something up
 * mostly does not. It writes cards only through vault/; what it writes to the state is an adoption,
 * when `read_card` is given an index block's ids (adoption.ts), and a session's lore switch, which the
 * gateway and the hook read (`set_lore`, lore.ts). Style memory's three tools
 * (style-tools.ts) go through style/ alone. It works on the vault's own cards or, with `--book`, on one
 * book of the vault (books.ts). In stdio mode nothing but protocol reaches stdout.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { DEFAULTS } from "../defaults.ts";
import { LoreError } from "../errors.ts";
import { isLoopbackHost, type Listener, listen } from "../http/index.ts";
import type { StyleOptions } from "../style/index.ts";
import type { Vault } from "../vault/index.ts";
import { cappedLines, MAX_MESSAGE_BYTES } from "./_stdio-frames.ts";
import type { ServedBook } from "./books.ts";
import { mcpHandler } from "./http.ts";
import { createMcpServer } from "./server.ts";
import { type McpState, vaultState } from "./state.ts";
import { tenantMcp } from "./tenants.ts";

export { MAX_MESSAGE_BYTES } from "./_stdio-frames.ts";
export type { ServedBook } from "./books.ts";
export { MCP_PATH, type McpHttpOptions, mcpHandler } from "./http.ts";
export { MAX_SECTION_CHARS } from "./schemas.ts";
export { createMcpServer, type ServerOptions } from "./server.ts";
export { type McpState, storeState, vaultState } from "./state.ts";
export { type TenantMcpOptions, tenantMcp } from "./tenants.ts";
export { listCardsData, readCardData, writeCard } from "./tools.ts";

export const MCP_DEFAULTS = { host: DEFAULTS.host, port: DEFAULTS.mcpPort } as const;

export interface StdioServeOptions {
  version: string;
  style?: StyleOptions;
  /** Where adoptions and lore switches go; the vault's state.db by default. */
  state?: McpState;
  /** The Claude Code session that started this server (`set_lore`'s default). */
  session?: string;
  /** The book `vault` is, when one was named (`--book`; books.ts). */
  book?: ServedBook;
}

/** Serve on stdin/stdout; resolves when the client closes the connection. */
export async function serveStdio(vault: Vault, options: StdioServeOptions): Promise<void> {
  const state = options.state ?? vaultState(vault, options.book);
  const server = createMcpServer(vault, { ...options, state });
  // Lines over the cap are answered with an error and left out, never the end of the server.
  const lines = cappedLines(process.stdin, (answer) => process.stdout.write(answer));
  const transport = new StdioServerTransport(lines, process.stdout, {
    maxBufferSize: MAX_MESSAGE_BYTES + 1024,
  });
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
  await state.close();
}

export interface HttpServeOptions {
  /** The vault served (not given with `tenants`). */
  vault?: Vault;
  version: string;
  host?: string;
  port?: number;
  token?: string;
  /** Style memory's options (its clock). */
  style?: StyleOptions;
  /** Where adoptions and lore switches go; the vault's state.db by default. */
  state?: McpState;
  /** The book `vault` is, when one was named (`--book`; books.ts). */
  book?: ServedBook;
  /** A tenants file: serve each tenant it lists over its own vault and state (tenants.ts). */
  tenants?: string;
  /** With `tenants`: the server's `--store`, in which each tenant gets a space of its own. */
  store?: string;
  /** With `tenants`: how long an idle tenant stays open, how many at most (tenants/). */
  tenantPool?: { idleMs?: number; maxOpen?: number };
}

/** Serve streamable HTTP at /mcp. Off loopback a token is mandatory (refuses to start without one). */
export function serveHttp(options: HttpServeOptions): Listener {
  const host = options.host ?? MCP_DEFAULTS.host;
  const loopback = isLoopbackHost(host);
  if (options.tenants !== undefined) return listenTenants(options, host, loopback);
  if (!loopback && !options.token) {
    throw new LoreError(
      "usage",
      `--host ${host} is reachable from the network: set --token (e.g. $(openssl rand -hex 16))`,
    );
  }
  if (!options.vault) throw new LoreError("usage", "an MCP server needs a vault or a tenants file");
  const fetch = mcpHandler({
    vault: options.vault,
    version: options.version,
    token: options.token,
    loopback,
    style: options.style,
    state: options.state,
    book: options.book,
  });
  return listen({ hostname: host, port: options.port ?? MCP_DEFAULTS.port, fetch });
}

/** Every tenant of the file on one endpoint; each tenant's own token is what lets it in. */
function listenTenants(options: HttpServeOptions, host: string, loopback: boolean): Listener {
  const tenants = tenantMcp({
    tenants: options.tenants!,
    version: options.version,
    loopback,
    store: options.store,
    style: options.style,
    warn: (line) => process.stderr.write(`${line}\n`),
    ...options.tenantPool,
  });
  const listener = listen({ hostname: host, port: options.port ?? MCP_DEFAULTS.port, fetch: tenants.fetch });
  return {
    ...listener,
    stop: async (force) => {
      await listener.stop(force);
      await tenants.close();
    },
  };
}
