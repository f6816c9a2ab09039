/**
 * The tenants file as data (docs/DEPLOYMENT.md "One process with many tenants"): one entry per tenant
 * under `tenants:`, each with its vault, the SHA-256 of its token (never the token), and optionally
 * its own state store and limits. Pure: text in, tenants and one warning per thing passed over out. An
 * entry that does not read is left out whole (with a warning naming it), never half-applied: a tenant
 * without a usable token or vault must not be served at all.
 */
import path from "node:path";
import { describeError } from "../errors.ts";
import { yamlData } from "../yaml-data.ts";

export const TENANTS_FILE = "tenants.yaml";

/** What one tenant is held to besides its own vault and state. */
export interface TenantLimits {
  /** Requests a minute (a bucket that refills evenly); absent: no limit. */
  requestsPerMinute?: number;
  /** Conversations its store keeps (the store's `?conversations=` cap); absent: the store's default. */
  conversations?: number;
}

export interface Tenant {
  /** Lower case: a tenant's name is matched case-insensitively wherever it is given. */
  name: string;
  /** Absolute path of its vault. */
  vault: string;
  /** Hex SHA-256 of its token. */
  tokenSha256: string;
  /** Its own state store URL; absent: the server's store with a space of its own, else its vault's state.db. */
  store?: string;
  limits: TenantLimits;
}

/** A tenant name: what a path prefix (`/t/NAME/`) and a Postgres space can both carry unchanged. */
export const TENANT_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

const KEYS = new Set(["vault", "token_sha256", "store", "requests_per_minute", "conversations"]);

export function tenantNameProblem(name: string): string | null {
  return TENANT_NAME.test(name.toLowerCase())
    ? null
    : "a tenant's name is 1 to 63 letters a-z, digits, '-' or '_', starting with a letter or digit";
}

function wholeAbove0(value: unknown): number | undefined | null {
  if (value === undefined || value === null) return undefined;
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : null;
}

/** One entry, or the reason it is left out. */
function readEntry(name: string, raw: unknown, dir: string): Tenant | string {
  const problem = tenantNameProblem(name);
  if (problem !== null) return problem;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return "not a mapping of setting: value";
  const entry = raw as Record<string, unknown>;
  const unknown = Object.keys(entry).find((k) => !KEYS.has(k));
  if (unknown !== undefined) return `unknown setting "${unknown}"`;
  const hash = entry.token_sha256;
  if (typeof hash !== "string" || !/^[0-9a-f]{64}$/i.test(hash))
    return "token_sha256 must be the 64 hex digits of the token's SHA-256 (lorecards tenant add writes it)";
  const vault = entry.vault ?? name;
  if (typeof vault !== "string" || vault.trim() === "") return "vault must be a folder";
  if (entry.store !== undefined && (typeof entry.store !== "string" || entry.store.trim() === ""))
    return "store must be a store URL";
  const rpm = wholeAbove0(entry.requests_per_minute);
  const conversations = wholeAbove0(entry.conversations);
  if (rpm === null) return "requests_per_minute must be a whole number above 0";
  if (conversations === null) return "conversations must be a whole number above 0";
  const limits: TenantLimits = {};
  if (rpm !== undefined) limits.requestsPerMinute = rpm;
  if (conversations !== undefined) limits.conversations = conversations;
  return {
    name: name.toLowerCase(),
    vault: path.resolve(dir, vault.trim()),
    tokenSha256: hash.toLowerCase(),
    ...(typeof entry.store === "string" && { store: entry.store.trim() }),
    limits,
  };
}

/**
 * The tenants a file's text declares; relative vault paths are read from `dir` (the file's folder).
 * Throws only when the text is not YAML at all (the caller keeps what it had and says so).
 */
export function parseTenants(text: string, dir: string): { tenants: Tenant[]; warnings: string[] } {
  const warnings: string[] = [];
  let data: unknown;
  try {
    data = yamlData(text);
  } catch (err) {
    throw new Error(`not valid YAML (${describeError(err).split("\n")[0]})`);
  }
  if (data === null || data === undefined) return { tenants: [], warnings };
  const list = (data as { tenants?: unknown }).tenants;
  if (
    typeof data !== "object" ||
    Array.isArray(data) ||
    (list !== undefined && list !== null && (typeof list !== "object" || Array.isArray(list)))
  )
    throw new Error("the file must hold `tenants:`, a mapping of name: settings");
  const tenants: Tenant[] = [];
  const names = new Map<string, number>();
  const hashes = new Map<string, number>();
  for (const [name, raw] of Object.entries((list ?? {}) as Record<string, unknown>)) {
    const read = readEntry(name, raw, dir);
    if (typeof read === "string") {
      warnings.push(`tenant "${name}": ${read}; not served`);
      continue;
    }
    names.set(read.name, (names.get(read.name) ?? 0) + 1);
    hashes.set(read.tokenSha256, (hashes.get(read.tokenSha256) ?? 0) + 1);
    tenants.push(read);
  }
  // Two entries one name or one token would pick between: neither is served, so none is served wrongly.
  const kept = tenants.filter((t) => {
    if ((names.get(t.name) ?? 0) > 1)
      warnings.push(`tenant "${t.name}" is named twice (names ignore case); not served`);
    else if ((hashes.get(t.tokenSha256) ?? 0) > 1)
      warnings.push(`tenant "${t.name}" shares its token with another tenant; not served`);
    else return true;
    return false;
  });
  return { tenants: kept, warnings };
}

/** The hex SHA-256 of a token, as the file keeps it. */
export function tokenHash(token: string): string {
  return new Bun.CryptoHasher("sha256").update(token).digest("hex");
}
