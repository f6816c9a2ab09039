/**
 * Slowing down token guessing. After `maxFailures` bad tokens from one address within `windowMs`, that
 * address is answered 429 with `Retry-After` (RFC 6585 §4, RFC 9110 §10.2.3) for `pauseMs`, whatever
 * it sends, the right token included: otherwise a guesser would learn the answer during the pause. A
 * good token does not reset the count, so a guesser cannot hide behind a user sharing its address.
 * IPv6 addresses are counted per /64, the block one subscriber usually gets. The map is bounded: when
 * it is full, finished entries are dropped first, then the oldest. Nothing here reads the clock unless
 * told to (`now`).
 */
import { errorResponse } from "./envelope.ts";

export interface ThrottleOptions {
  /** Bad tokens from one address within `windowMs` that start a pause. Default 5. */
  maxFailures: number;
  /** Default 60 s. */
  windowMs: number;
  /** How long an address is refused once paused. Default 60 s. */
  pauseMs: number;
  /** Addresses remembered at most. Default 1000. */
  maxAddresses: number;
  now: () => number;
}

export const THROTTLE_DEFAULTS: ThrottleOptions = {
  maxFailures: 5,
  windowMs: 60_000,
  pauseMs: 60_000,
  maxAddresses: 1000,
  now: Date.now,
};

export interface Throttle {
  /** A 429 while `address` is paused; null when it may try. */
  refuse(address: string): Response | null;
  /** Count one bad token from `address`. */
  fail(address: string): void;
  /** Addresses remembered now (bounded by `maxAddresses`). */
  readonly size: number;
}

interface Entry {
  /** Times of the recent failures, oldest first, at most `maxFailures`. */
  failures: number[];
  pausedUntil: number;
}

export function createThrottle(options: Partial<ThrottleOptions> = {}): Throttle {
  const o = { ...THROTTLE_DEFAULTS, ...options };
  const entries = new Map<string, Entry>();
  const finished = (e: Entry, now: number) =>
    e.pausedUntil <= now && (e.failures.at(-1) ?? Number.NEGATIVE_INFINITY) <= now - o.windowMs;
  const makeRoom = (now: number) => {
    if (entries.size < o.maxAddresses) return;
    for (const [k, e] of entries) if (finished(e, now)) entries.delete(k);
    while (entries.size >= o.maxAddresses) entries.delete(entries.keys().next().value as string);
  };
  return {
    refuse(address) {
      const now = o.now();
      const e = entries.get(addressKey(address));
      if (e === undefined || e.pausedUntil <= now) return null;
      const seconds = Math.max(1, Math.ceil((e.pausedUntil - now) / 1000));
      return errorResponse(
        "rate_limited",
        `too many wrong tokens from this address; try again in ${seconds} s`,
        { headers: { "retry-after": String(seconds) } },
      );
    },
    fail(address) {
      const now = o.now();
      const key = addressKey(address);
      let e = entries.get(key);
      if (e === undefined) {
        makeRoom(now);
        e = { failures: [], pausedUntil: 0 };
      }
      entries.delete(key); // re-inserted last: the map's order is least recently failed first
      entries.set(key, e);
      e.failures = [...e.failures.filter((t) => t > now - o.windowMs), now].slice(-o.maxFailures);
      if (e.failures.length >= o.maxFailures) {
        e.pausedUntil = now + o.pauseMs;
        e.failures = [];
      }
    },
    get size() {
      return entries.size;
    },
  };
}

/** What a throttle counts by: an IPv4 address as is, an IPv6 address by its /64. */
export function addressKey(address: string): string {
  const a = address.toLowerCase().replace(/^\[|\]$/g, "");
  if (!a.includes(":")) return a;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return mapped[1]!;
  const [head = "", tail = ""] = a.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = a.includes("::") ? (tail === "" ? [] : tail.split(":")) : [];
  const groups = a.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** The peer of a request as Bun.serve knows it (its `server` argument). */
export interface Peer {
  requestIP(req: Request): { address: string } | null;
}

/** The client's address; "unknown" when there is no socket (a test calling a handler directly). */
export function clientAddress(req: Request, peer?: Peer): string {
  try {
    return peer?.requestIP(req)?.address ?? "unknown";
  } catch {
    return "unknown";
  }
}
