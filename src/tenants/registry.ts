/**
 * The tenants a server serves, as its tenants file says now: the file is stat'ed on each look-up (at
 * most every `recheckMs`) and read again when its mtime or size moved, so adding, removing or
 * re-keying a tenant takes effect on the next request, without a restart. A file that stops reading
 * (a half-edited YAML) leaves the tenants as they were, said once; a file that is gone serves no one.
 * A token is found by its hash, so the file never holds one and a look-up takes the same time whoever
 * asks.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { describeError } from "../errors.ts";
import { readPlain } from "../plain-file.ts";
import { parseTenants, type Tenant, tokenHash } from "./_parse.ts";

export class TenantRegistry {
  private stamp = "";
  private byName = new Map<string, Tenant>();
  private byHash = new Map<string, Tenant>();
  private checked = Number.NEGATIVE_INFINITY;

  constructor(
    readonly file: string,
    private readonly warn: (line: string) => void,
    private readonly recheckMs = 0,
  ) {}

  /** Every tenant served now, by name. */
  all(): Tenant[] {
    this.refresh();
    return [...this.byName.values()];
  }

  /** The tenant this token is the token of, or undefined. */
  byToken(token: string): Tenant | undefined {
    this.refresh();
    return this.byHash.get(tokenHash(token));
  }

  /** The tenant of this name (any case), or undefined. */
  named(name: string): Tenant | undefined {
    this.refresh();
    return this.byName.get(name.toLowerCase());
  }

  private refresh(): void {
    const now = performance.now();
    if (now - this.checked < this.recheckMs) return;
    this.checked = now;
    const stat = statSync(this.file, { throwIfNoEntry: false, bigint: true });
    const stamp = stat ? `${stat.ino}:${stat.mtimeNs}:${stat.size}` : "none";
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    if (!stat) {
      this.set([]);
      this.warn(`lorecards: the tenants file ${this.file} is not there: no tenant is served until it is`);
      return;
    }
    let parsed: ReturnType<typeof parseTenants>;
    try {
      parsed = parseTenants(readPlain(this.file, { name: this.file }), path.dirname(this.file));
    } catch (err) {
      this.warn(`lorecards: ${this.file}: ${describeError(err)}; the tenants stay as they were`);
      return;
    }
    for (const line of parsed.warnings) this.warn(`lorecards: ${this.file}: ${line}`);
    this.set(parsed.tenants);
  }

  private set(tenants: Tenant[]): void {
    this.byName = new Map(tenants.map((t) => [t.name, t]));
    this.byHash = new Map(tenants.map((t) => [t.tokenSha256, t]));
  }
}
