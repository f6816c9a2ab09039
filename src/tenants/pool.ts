/**
 * The tenants open in one process: a tenant's server (its engine over its vault, its store) is opened
 * on its first request and closed once it has been idle for `idleMs`, or when more than `maxOpen` are
 * open (the least recently used idle one first), or when the tenant left the file or changed where its
 * vault or state is. An idle tenant therefore holds no card, index, matcher or connection: what 1,000
 * tenants cost is what the open ones cost (bench/tenants.ts). Opening is shared by the requests that
 * wait for it; a failed open is tried again on the next request.
 */
import type { Peer } from "../http/index.ts";
import type { Tenant } from "./_parse.ts";

/** One tenant's surface: a fetch handler over its own vault and state, and what lets go of them. */
export interface TenantServer {
  fetch(req: Request, peer?: Peer): Promise<Response>;
  close(): Promise<void>;
}

export interface PoolOptions {
  open(tenant: Tenant): TenantServer | Promise<TenantServer>;
  /** A tenant with no request for this long is closed (default 5 minutes). */
  idleMs?: number;
  /** Tenants open at most, idle ones closed first to make room (default 1,000). */
  maxOpen?: number;
  /** Whether a tenant is still in the file (a removed one is closed at the next sweep). */
  served?(name: string): boolean;
  warn?: (line: string) => void;
  now?: () => number;
}

interface Entry {
  signature: string;
  server: Promise<TenantServer>;
  lastUsed: number;
  inflight: number;
}

export const POOL_DEFAULTS = { idleMs: 5 * 60_000, maxOpen: 1000 } as const;

/** What, when it changes, means a tenant's server must be opened anew. */
function signatureOf(t: Tenant): string {
  return JSON.stringify([t.vault, t.store ?? "", t.limits.conversations ?? 0]);
}

export class TenantPool {
  private readonly open = new Map<string, Entry>();
  private readonly sweeper: ReturnType<typeof setInterval>;
  private readonly o: Required<Pick<PoolOptions, "idleMs" | "maxOpen" | "now">> & PoolOptions;

  constructor(options: PoolOptions) {
    this.o = { ...POOL_DEFAULTS, now: Date.now, ...options };
    this.sweeper = setInterval(() => void this.sweep(), Math.max(1000, Math.min(this.o.idleMs / 4, 30_000)));
    this.sweeper.unref();
  }

  /** How many tenants are open now. */
  get size(): number {
    return this.open.size;
  }

  /** Runs `fn` with the tenant's server, opening it first when it is not open. */
  async use<T>(tenant: Tenant, fn: (server: TenantServer) => Promise<T>): Promise<T> {
    const entry = this.entryFor(tenant);
    entry.inflight++;
    entry.lastUsed = this.o.now();
    try {
      return await fn(await entry.server);
    } finally {
      entry.inflight--;
      entry.lastUsed = this.o.now();
    }
  }

  private entryFor(tenant: Tenant): Entry {
    const signature = signatureOf(tenant);
    const found = this.open.get(tenant.name);
    if (found && found.signature === signature) {
      // Most recently used last: the map's order is the order to close in.
      this.open.delete(tenant.name);
      this.open.set(tenant.name, found);
      return found;
    }
    if (found) this.closeEntry(tenant.name, found);
    this.makeRoom();
    const server = Promise.resolve().then(() => this.o.open(tenant));
    const entry: Entry = { signature, server, lastUsed: this.o.now(), inflight: 0 };
    server.catch(() => {
      if (this.open.get(tenant.name) === entry) this.open.delete(tenant.name);
    });
    this.open.set(tenant.name, entry);
    return entry;
  }

  private makeRoom(): void {
    if (this.open.size < this.o.maxOpen) return;
    for (const [name, entry] of this.open) {
      if (this.open.size < this.o.maxOpen) break;
      if (entry.inflight === 0) this.closeEntry(name, entry);
    }
  }

  private closeEntry(name: string, entry: Entry): void {
    if (this.open.get(name) === entry) this.open.delete(name);
    void entry.server
      .then((s) => s.close())
      .catch((err) => this.o.warn?.(`lorecards: closing tenant ${name}: ${String(err)}`));
  }

  /** Closes the tenants idle for `idleMs` and those no longer in the file. */
  async sweep(): Promise<void> {
    const now = this.o.now();
    for (const [name, entry] of [...this.open]) {
      const gone = this.o.served !== undefined && !this.o.served(name);
      if (entry.inflight === 0 && (gone || now - entry.lastUsed >= this.o.idleMs))
        this.closeEntry(name, entry);
    }
  }

  /** Closes every tenant (the server is stopping). */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((e) => e.server.then((s) => s.close()).catch(() => undefined)));
  }
}
