/**
 * The tenants file written (`lorecards tenant add|remove|token`): under a lock beside it, replaced
 * atomically, mode 0600 (a tenant's own store URL may carry a password), the person's comments and
 * other entries kept as they were (the `yaml` document is edited, not rewritten). A token is made here,
 * given back once, and only its SHA-256 is written. Adding a tenant makes its vault when it is not
 * there yet, as `lorecards init` does; removing one leaves its vault and state where they are.
 */
import fs from "node:fs";
import path from "node:path";
import type { Document } from "yaml";
import { LoreError } from "../errors.ts";
import { readPlain } from "../plain-file.ts";
import { atomicWrite, initVault, randomHex, withLock } from "../vault/index.ts";
import { parseTenants, type Tenant, tenantNameProblem, tokenHash } from "./_parse.ts";

const HEADER = [
  "# lorecards tenants: one entry per tenant, served by `gateway`, `ui` and `mcp --http` given",
  "# --tenants this-file (docs/DEPLOYMENT.md). A tenant's token is never kept here, only its SHA-256:",
  "# `lorecards tenant add NAME` prints a new tenant's token once; `lorecards tenant token NAME` makes a new one.",
  "tenants:",
  "",
].join("\n");

export interface AddOptions {
  /** Its vault folder (relative to the file's folder); default a folder named after it beside the file. */
  vault?: string;
  store?: string;
  requestsPerMinute?: number;
  conversations?: number;
}

function yaml(): typeof import("yaml") {
  return require("yaml") as typeof import("yaml");
}

function readDoc(file: string): Document {
  const text = fs.existsSync(file) ? readPlain(file, { name: file }) : HEADER;
  const doc = yaml().parseDocument(text, { schema: "core" });
  if (doc.errors.length > 0) throw new LoreError("parse_error", `${file}: ${doc.errors[0]!.message}`);
  if (doc.get("tenants") === null || doc.get("tenants") === undefined) doc.set("tenants", doc.createNode({}));
  // One entry a block, as people write them (an empty map would otherwise be written `{}`, and grow so).
  const map = doc.get("tenants", true) as { flow?: boolean };
  map.flow = false;
  return doc;
}

function writeDoc(file: string, doc: Document): void {
  atomicWrite(file, doc.toString({ lineWidth: 0 }));
  fs.chmodSync(file, 0o600);
}

/** Runs `fn` under the lock of the file's folder (a `.lorecards/lock` there, as a vault's). */
async function locked<T>(file: string, fn: () => T): Promise<T> {
  const dir = path.dirname(path.resolve(file));
  fs.mkdirSync(path.join(dir, ".lorecards"), { recursive: true });
  return withLock({ root: dir }, fn);
}

/** The entry of `name` as written in the file (its own case), or undefined. */
function entryKey(doc: Document, name: string): string | undefined {
  const map = doc.get("tenants") as { items?: { key: { value?: unknown } }[] } | undefined;
  for (const item of map?.items ?? []) {
    const key = String(item.key?.value ?? "");
    if (key.toLowerCase() === name.toLowerCase()) return key;
  }
  return undefined;
}

export function newToken(): string {
  return randomHex(24);
}

/** Adds a tenant; returns it as the file now reads, and its token (shown once). */
export async function addTenant(
  file: string,
  name: string,
  opts: AddOptions = {},
): Promise<{ tenant: Tenant; token: string; created: boolean }> {
  const problem = tenantNameProblem(name);
  if (problem !== null) throw new LoreError("invalid_input", `"${name}": ${problem}`);
  const lower = name.toLowerCase();
  return locked(file, () => {
    const doc = readDoc(file);
    if (entryKey(doc, lower) !== undefined)
      throw new LoreError("conflict", `a tenant "${lower}" is already in ${file}`);
    const token = newToken();
    const entry: Record<string, unknown> = { vault: opts.vault ?? lower, token_sha256: tokenHash(token) };
    if (opts.store) entry.store = opts.store;
    if (opts.requestsPerMinute) entry.requests_per_minute = opts.requestsPerMinute;
    if (opts.conversations) entry.conversations = opts.conversations;
    const node = doc.createNode(entry) as { flow?: boolean };
    node.flow = false;
    doc.setIn(["tenants", lower], node);
    const tenant = parseTenants(doc.toString(), path.dirname(path.resolve(file))).tenants.find(
      (t) => t.name === lower,
    );
    if (!tenant) throw new LoreError("invalid_input", `the tenant "${lower}" would not be served as given`);
    const created = !fs.existsSync(tenant.vault);
    initVault(tenant.vault);
    writeDoc(file, doc);
    return { tenant, token, created };
  });
}

/** Removes a tenant from the file; its vault and state stay where they are. */
export async function removeTenant(file: string, name: string): Promise<Tenant> {
  return locked(file, () => {
    const doc = readDoc(file);
    const key = entryKey(doc, name);
    const before = parseTenants(doc.toString(), path.dirname(path.resolve(file))).tenants;
    const tenant = before.find((t) => t.name === name.toLowerCase());
    if (key === undefined || !tenant) throw new LoreError("not_found", `no tenant "${name}" in ${file}`);
    doc.deleteIn(["tenants", key]);
    writeDoc(file, doc);
    return tenant;
  });
}

/** Gives a tenant a new token (the old one stops working at once); returns it, shown once. */
export async function renewToken(file: string, name: string): Promise<string> {
  return locked(file, () => {
    const doc = readDoc(file);
    const key = entryKey(doc, name);
    if (key === undefined) throw new LoreError("not_found", `no tenant "${name}" in ${file}`);
    const token = newToken();
    doc.setIn(["tenants", key, "token_sha256"], tokenHash(token));
    writeDoc(file, doc);
    return token;
  });
}

/** The tenants the file serves, and what in it is passed over. */
export function listTenants(file: string): { tenants: Tenant[]; warnings: string[] } {
  if (!fs.existsSync(file))
    throw new LoreError("not_found", `no tenants file at ${file} (lorecards tenant add NAME makes one)`);
  try {
    return parseTenants(readPlain(file, { name: file }), path.dirname(path.resolve(file)));
  } catch (err) {
    if (err instanceof LoreError) throw err;
    throw new LoreError("parse_error", `${file}: ${(err as Error).message}`, { cause: err });
  }
}
