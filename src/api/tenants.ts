/**
 * The editor's API for many tenants (`lorecards ui --tenants FILE`): per tenant the API of index.ts over
 * its own engine, vault and store, opened on its first request and closed when idle (tenants/). The
 * page is the same for everyone and holds no card; the token its `?token=` link gave it (sent as
 * `Authorization: Bearer`) says whose cards it shows. A request to `/t/NAME/api/…` is served with that
 * tenant's token only.
 */
import { openEngine } from "../recall/index.ts";
import { openStore } from "../state/index.ts";
import type { StyleOptions } from "../style/index.ts";
import { serveTenants, type TenantsServer } from "../tenants/index.ts";
import { createApi } from "./index.ts";

export interface TenantApiOptions {
  tenants: string;
  hosts: readonly string[];
  port?: number;
  /** The server's `--store` (a Postgres database: each tenant gets a space of its own). */
  store?: string;
  noLog?: boolean;
  style?: StyleOptions;
  warn: (line: string) => void;
  idleMs?: number;
  maxOpen?: number;
}

export function tenantApi(o: TenantApiOptions): TenantsServer {
  return serveTenants({
    file: o.tenants,
    store: o.store,
    guard: {
      hosts: o.hosts,
      port: o.port,
      hostHint: "see --allow-host",
      crossSite: "refuse",
      preflight: "refuse",
    },
    tokenHeaders: ["authorization"],
    warn: o.warn,
    idleMs: o.idleMs,
    maxOpen: o.maxOpen,
    async open(tenant, state) {
      const engine = await openEngine(tenant.vault, { watch: true, persist: true });
      const store = await openStore(state, { warn: o.warn }).catch((err) => {
        engine.close();
        throw err;
      });
      const api = createApi({ engine, hosts: o.hosts, port: o.port, store, noLog: o.noLog, style: o.style });
      return {
        fetch: (req, peer) => api(req, peer),
        close: async () => {
          engine.close();
          await store.close();
        },
      };
    },
  });
}
