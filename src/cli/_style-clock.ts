/**
 * What the environment tells style memory (docs/STYLE-MEMORY.md). `$LORECARDS_STYLE_NOW` is an
 * instant, milliseconds since the epoch or an ISO 8601 time, that style memory reads instead of the
 * system clock: its TTLs (a candidate unseen for 30 days, an active habit archived after 180) can then
 * be crossed through the compiled binary, which has no test hooks. `$STYLE_MEMORY_…` set its settings
 * (style/settings.ts) over settings.yaml's, and `$STYLE_MEMORY_LEARNING=off` stops learning as
 * `--no-learn` does, named as style-memory-mcp names them. cli/ is the one place that reads the
 * environment; what it gives is passed down as `StyleOptions`.
 */
import { LoreError } from "../errors.ts";
import { styleSettingsFromEnv } from "../style/settings.ts";

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

/**
 * `StyleOptions` for the style book: a frozen clock when the variable is set, else the system's, and
 * the settings the environment sets (a value that is not one is left to `check` to report).
 */
export function styleOptions(env: Record<string, string | undefined> = process.env) {
  const at = styleNowFrom(env);
  const { settings } = styleSettingsFromEnv(env);
  return { ...(at === undefined ? {} : { now: () => at }), settings };
}

export const LEARNING_ENV = "STYLE_MEMORY_LEARNING";

/** False when the environment turns learning off (`off`, `false`, `0`, `no`), as `--no-learn` does. */
export function learningFromEnv(env: Record<string, string | undefined> = process.env): boolean {
  const raw = env[LEARNING_ENV]?.trim().toLowerCase();
  return !(raw === "off" || raw === "false" || raw === "0" || raw === "no");
}
