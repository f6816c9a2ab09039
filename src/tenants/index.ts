/**
 * tenants/ owns serving many people's vaults from one process (docs/DEPLOYMENT.md "One process with
 * many tenants"): the tenants file (each tenant's vault, the SHA-256 of its token, its own store and
 * limits: _parse.ts, registry.ts, edit.ts), which tenant a request is (router.ts: its token, or a
 * `/t/NAME/` prefix and its token), and which tenants are open (pool.ts: opened on use, closed when
 * idle). Each tenant gets a surface of its own over its own vault and state, made by the surface that
 * serves it (gateway/, api/, mcp/ pass `open`); nothing here reads a card or a conversation, so there
 * is nothing one tenant could be handed of another's.
 */
import { LoreError } from "../errors.ts";
import type { GuardRules, Peer, TokenHeader } from "../http/index.ts";
import { createThrottle } from "../http/index.ts";
import { stateUrl } from "../state/index.ts";
import type { Tenant } from "./_parse.ts";
import { POOL_DEFAULTS, TenantPool, type TenantServer } from "./pool.ts";
import { TenantRegistry } from "./registry.ts";
import { tenantRouter } from "./router.ts";

export {
  TENANT_NAME,
  TENANTS_FILE,
  type Tenant,
  type TenantLimits,
  tenantNameProblem,
  tokenHash,
} from "./_parse.ts";
export { type AddOptions, addTenant, listTenants, newToken, removeTenant, renewToken } from "./edit.ts";
export { POOL_DEFAULTS, type PoolOptions, TenantPool, type TenantServer } from "./pool.ts";
export { TenantRegistry } from "./registry.ts";
export { splitTenantPath, TENANT_PREFIX, tenantRouter } from "./router.ts";

/**
 * Where a tenant's state lives: its own `store:`; else the server's `--store` (a Postgres database)
 * with a space of its own named after it; else its vault's own state.db. Its `conversations` limit
 * becomes the store's cap.
 */
export function tenantStoreUrl(tenant: Tenant, serverStore?: string): string {
  let url = tenant.store;
  if (url === undefined && serverStore !== undefined) {
    const parsed = new URL(serverStore);
    const shared = parsed.searchParams.get("space");
    parsed.searchParams.set("space", shared ? `${shared}.${tenant.name}` : tenant.name);
    url = parsed.href;
  }
  url ??= stateUrl(tenant.vault);
  const cap = tenant.limits.conversations;
  if (cap === undefined || /[?&]conversations=/.test(url)) return url;
  return `${url}${url.includes("?") ? "&" : "?"}conversations=${cap}`;
}

/**
 * A store given to a server of tenants must keep them apart: a Postgres database does, by space; one
 * SQLite file or one process's memory for everyone would not.
 */
export function checkServerStore(store: string | undefined): void {
  if (store === undefined || /^postgres(ql)?:\/\//.test(store)) return;
  throw new LoreError(
    "usage",
    `--store ${store.split("?")[0]} would put every tenant's state in one place: leave it out (each tenant's vault keeps its own state.db) or name a postgres:// database (each tenant gets a space of its own)`,
  );
}

export interface ServeTenantsOptions {
  /** The tenants file. */
  file: string;
  /** The surface of one tenant, over its vault and the store URL it is given. */
  open(tenant: Tenant, storeUrl: string): TenantServer | Promise<TenantServer>;
  /** The server's `--store`, if any (checkServerStore). */
  store?: string;
  guard: GuardRules;
  tokenHeaders: readonly TokenHeader[];
  anonymous?(req: Request): Promise<Response> | null;
  warn: (line: string) => void;
  idleMs?: number;
  maxOpen?: number;
  /** The clock idle tenants are measured by (tests move it). */
  now?: () => number;
}

export interface TenantsServer {
  fetch(req: Request, peer?: Peer): Promise<Response>;
  readonly pool: TenantPool;
  close(): Promise<void>;
}

/** The router, the file and the pool of one server of tenants, put together. */
export function serveTenants(o: ServeTenantsOptions): TenantsServer {
  checkServerStore(o.store);
  const registry = new TenantRegistry(o.file, o.warn);
  registry.all(); // said now, at start, when the file does not read
  const pool = new TenantPool({
    open: (t) => o.open(t, tenantStoreUrl(t, o.store)),
    served: (name) => registry.named(name) !== undefined,
    warn: o.warn,
    idleMs: o.idleMs ?? POOL_DEFAULTS.idleMs,
    maxOpen: o.maxOpen ?? POOL_DEFAULTS.maxOpen,
    ...(o.now && { now: o.now }),
  });
  const fetch = tenantRouter({
    registry,
    pool,
    guard: o.guard,
    tokenHeaders: o.tokenHeaders,
    throttle: createThrottle(),
    anonymous: o.anonymous,
  });
  return { fetch, pool, close: () => pool.close() };
}
