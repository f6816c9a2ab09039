/**
 * The flags of a server of many vaults (`gateway`, `ui`, `mcp --http`: docs/DEPLOYMENT.md): the
 * tenants file, how long an idle tenant stays open and how many stay open at most (tenants/ pool.ts).
 */
import path from "node:path";
import { LoreError } from "../errors.ts";
import { wholeNumber } from "./_shared.ts";

export function tenantsArgs(serves: string) {
  return {
    tenants: {
      type: "string",
      description: `serve every tenant of this tenants file${serves}, each over its own vault and state, found by its token (lorecards tenant add)`,
      valueHint: "FILE",
    },
    "tenant-idle": {
      type: "string",
      description: "with --tenants: seconds a tenant stays open without a request (default 300)",
      valueHint: "SECONDS",
    },
    "tenants-open": {
      type: "string",
      description:
        "with --tenants: tenants open at most, the least recently used idle one closed first (default 1000)",
      valueHint: "N",
    },
  } as const;
}

export interface TenantFlags {
  tenants?: string;
  "tenant-idle"?: string;
  "tenants-open"?: string;
}

/** The tenants file, absolute; undefined without --tenants (then the pool flags are refused). */
export function tenantsFileOf(args: TenantFlags): string | undefined {
  if (args.tenants === undefined && (args["tenant-idle"] !== undefined || args["tenants-open"] !== undefined))
    throw new LoreError("usage", "--tenant-idle and --tenants-open only apply with --tenants");
  return args.tenants === undefined ? undefined : path.resolve(args.tenants);
}

/** The pool's options the flags give; what is left out keeps its default. */
export function tenantPoolOf(args: TenantFlags): { idleMs?: number; maxOpen?: number } {
  const idle = wholeNumber(args["tenant-idle"], "--tenant-idle");
  const open = wholeNumber(args["tenants-open"], "--tenants-open");
  if (open === 0) throw new LoreError("usage", "--tenants-open must be 1 or more");
  return { ...(idle !== undefined && { idleMs: idle * 1000 }), ...(open !== undefined && { maxOpen: open }) };
}
