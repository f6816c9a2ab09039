/**
 * The gateway of many tenants (`lorecards gateway --tenants FILE`): one listener, one upstream, and per
 * tenant a gateway of its own (deps.ts over its vault and its store, handler.ts), opened by tenants/ on
 * its first request and closed when idle. A tenant is found by its `X-Lorecards-Token` (which the
 * proxy never passes upstream) or by a `/t/NAME/` prefix on the base URL with that token; a CORS
 * preflight, which can carry no token, is passed on as one gateway passes it. What a tenant's gateway
 * injects, replays and records is its own vault's and state's, and nothing else is within its reach.
 */
import { serveTenants, type TenantsServer } from "../tenants/index.ts";
import type { VaultDepsOptions } from "./deps.ts";
import { vaultDeps } from "./deps.ts";
import { createHandler, type GuardOptions, gatewayGuard, passPreflight, TOKEN_HEADER } from "./handler.ts";
import type { InjectSettings } from "./types.ts";

export interface TenantGatewayOptions {
  tenants: string;
  upstream: URL;
  settings: InjectSettings;
  /** What every tenant's deps share: style memory's switch and clock, the brief, the warn sink. */
  deps: Omit<VaultDepsOptions, "vaultRoot" | "state" | "sharedEngine">;
  /** The server's `--store` (a Postgres database: each tenant gets a space of its own). */
  store?: string;
  guard?: GuardOptions;
  fetch?: typeof fetch;
  idleMs?: number;
  maxOpen?: number;
  now?: () => number;
}

export function tenantGateway(o: TenantGatewayOptions): TenantsServer {
  const warn = o.deps.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  return serveTenants({
    file: o.tenants,
    store: o.store,
    guard: gatewayGuard(o.guard),
    tokenHeaders: [TOKEN_HEADER],
    anonymous: (req) => passPreflight(o.upstream, req, o.fetch),
    warn,
    idleMs: o.idleMs,
    maxOpen: o.maxOpen,
    now: o.now,
    open(tenant, state) {
      const deps = vaultDeps({
        ...o.deps,
        vaultRoot: tenant.vault,
        state,
        // Long-running, like one gateway; its first load and later checks happen in this process.
        engine: { watch: true, persist: true, ...o.deps.engine, create: false },
        warn: (line) => warn(`${line} [tenant ${tenant.name}]`),
      });
      const handler = createHandler({ upstream: o.upstream, settings: o.settings, deps, fetch: o.fetch });
      return { fetch: handler, close: () => deps.close() };
    },
  });
}
