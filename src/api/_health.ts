/**
 * `GET /api/health/cards` (docs/HTTP-API.md): the report `lorecards stats --cards --json` prints
 * (check/recall-health.ts): per card, its index recalls and openings of the last 30 days and its class.
 */
import { recallHealth } from "../check/recall-health.ts";
import type { HealthReport } from "../state/index.ts";
import { toWire, type Wire } from "../wire.ts";
import type { Context } from "./_routes.ts";

export async function cardHealth(ctx: Context): Promise<Wire<HealthReport>> {
  return toWire(await ctx.useStore((store) => recallHealth(ctx.vault, store, ctx.now().getTime())));
}
