/**
 * `GET /api/stats?days=N` (docs/HTTP-API.md): the report `lorecards stats --json` prints (state/
 * report.ts) for the last N UTC days, today included (default 7, at most 3,660).
 */
import { LoreError } from "../errors.ts";
import { type StatsReport, summarize, windowOf } from "../state/index.ts";
import { toWire, type Wire } from "../wire.ts";
import type { Context } from "./_routes.ts";

const MAX_DAYS = 3660;

export async function stats(ctx: Context, url: URL): Promise<Wire<StatsReport>> {
  const raw = url.searchParams.get("days");
  const days = raw === null || raw === "" ? 7 : Number(raw);
  if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS) {
    throw new LoreError("invalid_input", `days must be a whole number from 1 to ${MAX_DAYS}, got "${raw}"`);
  }
  const { since, sinceAt } = windowOf(ctx.now().getTime(), days);
  return ctx.useStore(async (store) =>
    toWire(summarize({ since, days: await store.days(since), turns: await store.turnsSince(sinceAt) })),
  );
}
