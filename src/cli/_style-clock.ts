/**
 * The style book's clock (README "Style memory"). `$LORECARDS_STYLE_NOW` is an instant, milliseconds
 * since the epoch or an ISO 8601 time, that style memory reads instead of the system clock: its TTLs
 * (a candidate unseen for 30 days, an active habit archived after 180) can then be crossed through
 * the compiled binary, which has no test hooks. Only style memory reads it, and only here: cli/ is
 * the one place that reads the environment; what it gives is passed down as `StyleOptions.now`.
 */
import { LoreError } from "../errors.ts";

export const STYLE_NOW_ENV = "LORECARDS_STYLE_NOW";

/** The instant the variable names, or undefined when it is unset or empty; anything else is a usage error. */
export function styleNowFrom(env: Record<string, string | undefined>): number | undefined {
  const raw = env[STYLE_NOW_ENV]?.trim();
  if (!raw) return undefined;
  const at = /^\d{5,}$/.test(raw)
    ? Number(raw)
    : /^\d{4}-\d{2}-\d{2}/.test(raw)
      ? Date.parse(raw)
      : Number.NaN;
  if (!Number.isSafeInteger(at)) {
    throw new LoreError(
      "usage",
      `$${STYLE_NOW_ENV} must be milliseconds since the epoch or an ISO time (2026-01-31T12:00:00Z), got "${raw}"`,
    );
  }
  return at;
}

/** `StyleOptions` for the style book: a frozen clock when the variable is set, else the system's. */
export function styleOptions(env: Record<string, string | undefined> = process.env): {
  now?: () => number;
} {
  const at = styleNowFrom(env);
  return at === undefined ? {} : { now: () => at };
}
