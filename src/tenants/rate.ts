/**
 * A tenant's `requests_per_minute`: a bucket of that many requests that refills evenly over a minute,
 * so a burst up to the limit passes and a steady rate above it is answered 429 with `Retry-After`
 * (RFC 6585 §4). One bucket per tenant, made on its first request; a limit that changes in the file
 * applies from the next request.
 */
interface Bucket {
  tokens: number;
  at: number;
  perMinute: number;
}

export class RateLimits {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Seconds to wait when `name` is over `perMinute` now; 0 when the request may go (and is counted). */
  take(name: string, perMinute: number | undefined): number {
    if (perMinute === undefined) return 0;
    const now = this.now();
    let b = this.buckets.get(name);
    if (!b || b.perMinute !== perMinute) {
      b = { tokens: perMinute, at: now, perMinute };
      this.buckets.set(name, b);
    }
    b.tokens = Math.min(perMinute, b.tokens + ((now - b.at) / 60_000) * perMinute);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - b.tokens) / perMinute) * 60));
  }

  /** Forget the tenants no longer served (the map stays as large as the file). */
  keepOnly(served: (name: string) => boolean): void {
    for (const name of this.buckets.keys()) if (!served(name)) this.buckets.delete(name);
  }
}
