/**
 * MCP over HTTP for many tenants (`lorecards mcp --http --tenants FILE`): one endpoint, and per tenant
 * the MCP server of http.ts over its own vault, its adoptions and lore switches kept in its own state. A tenant is
 * found by its token (`Authorization: Bearer` or `X-Lorecards-Token`), or by `/t/NAME/mcp` and its
 * token (tenants/). An agent's `write_card` therefore writes into its tenant's vault and no other.
 */
import type { GuardRules } from "../http/index.ts";
import type { StyleOptions } from "../style/index.ts";
import { serveTenants, type TenantsServer } from "../tenants/index.ts";
import { openVault } from "../vault/index.ts";
import { mcpHandler } from "./http.ts";
import { storeState } from "./state.ts";

export interface TenantMcpOptions {
  tenants: string;
  version: string;
  loopback: boolean;
  /** The server's `--store` (a Postgres database: each tenant gets a space of its own). */
  store?: string;
  style?: StyleOptions;
  warn: (line: string) => void;
  idleMs?: number;
  maxOpen?: number;
}

export function tenantMcp(o: TenantMcpOptions): TenantsServer {
  const guard: GuardRules = { loopback: o.loopback, crossSite: "refuse", loopbackPages: true };
  return serveTenants({
    file: o.tenants,
    store: o.store,
    guard,
    tokenHeaders: ["authorization", "x-lorecards-token"],
    warn: o.warn,
    idleMs: o.idleMs,
    maxOpen: o.maxOpen,
    open(tenant, state) {
      const vault = openVault(tenant.vault);
      const kept = storeState(state);
      const fetch = mcpHandler({
        vault,
        version: o.version,
        loopback: o.loopback,
        state: kept,
        style: o.style,
      });
      return { fetch, close: () => kept.close() };
    },
  });
}
