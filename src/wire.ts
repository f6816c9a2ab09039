/**
 * The one JSON convention of every `--json` answer and every HTTP API answer: keys in snake_case and
 * times as ISO 8601 strings in UTC. The domain keeps its TypeScript names (camelCase) and its clock
 * values (milliseconds since the epoch, which it compares and stores); a surface turns a report into
 * its wire form here, once, just before it prints or sends it.
 *
 * Only reports the project itself shapes go through `toWire`: a card's frontmatter, `extra` and
 * anything else a user named keeps the user's keys byte for byte, so a card never passes here.
 */

/** Keys (in their wire form) whose numeric value is a time in milliseconds since the epoch. */
const TIME_KEYS: ReadonlySet<string> = new Set([
  "at",
  "first_seen",
  "last_seen",
  "last_at",
  "last_opened",
  "last_recalled",
]);
type TimeKey = "at" | "first_seen" | "last_seen" | "last_at" | "last_opened" | "last_recalled";

/** `cacheHitRatio` → `cache_hit_ratio`, as a type. */
export type SnakeCase<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeCase<Rest>}`
  : S;

type TimeOf<V> = V extends number ? string : Wire<V>;

/** The wire form of a report type: what `toWire` makes of it. */
export type Wire<T> = T extends readonly (infer E)[]
  ? Wire<E>[]
  : T extends object
    ? {
        [K in keyof T as K extends string ? SnakeCase<K> : K]: K extends string
          ? SnakeCase<K> extends TimeKey
            ? TimeOf<T[K]>
            : Wire<T[K]>
          : Wire<T[K]>;
      }
    : T;

export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A time in milliseconds as the wire writes it: `2026-07-01T09:30:00.000Z`. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** `value` with every key in snake_case and every time as an ISO 8601 string; `undefined` dropped. */
export function toWire<T>(value: T): Wire<T> {
  return convert(value) as Wire<T>;
}

function convert(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(convert);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    const name = snakeCase(key);
    out[name] = TIME_KEYS.has(name) && typeof item === "number" ? isoTime(item) : convert(item);
  }
  return out;
}

const NS_PER_S = 1_000_000_000n;

/**
 * A file time in nanoseconds (the decimal string the vault compares) as ISO 8601 with all nine
 * fraction digits, `2026-07-01T09:30:00.123456789Z`: nothing of it is rounded away, so the string
 * read can be sent back as a write's precondition.
 */
export function isoFromNs(ns: string): string {
  const n = BigInt(ns);
  let seconds = n / NS_PER_S;
  let fraction = n % NS_PER_S;
  if (fraction < 0n) {
    seconds -= 1n;
    fraction += NS_PER_S;
  }
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return `${whole}.${fraction.toString().padStart(9, "0")}Z`;
}

/**
 * Back from `isoFromNs`: the nanoseconds of an ISO 8601 UTC time with up to nine fraction digits, or
 * of the bare digits earlier versions sent; null for anything else.
 */
export function nsFromIso(text: string): string | null {
  if (/^-?\d+$/.test(text)) return BigInt(text).toString();
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/.exec(text);
  if (!m) return null;
  const ms = Date.parse(`${m[1]}Z`);
  if (Number.isNaN(ms)) return null;
  return (BigInt(ms / 1000) * NS_PER_S + BigInt((m[2] ?? "").padEnd(9, "0"))).toString();
}
