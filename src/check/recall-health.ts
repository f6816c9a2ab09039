/**
 * The recall section of `lorecards check`, `lorecards stats --cards` and `GET /api/health/cards`
 * (README "Index mode and adoption"): how each card fares in the index recalls of the last 30 days and
 * in what the agent opened from them, classed dead, noisy, underperforming or healthy (state/
 * card-health.ts says how). Only the cards that come in on their own words are judged: an `always`
 * card goes in whole (the boot block), a `manual` one only when asked for, a `never` or disabled one
 * never, so none of them is listed in an index. It reads the vault's index and the store, and writes
 * nothing.
 */
import { rulesOf } from "../card/index.ts";
import { cardHealth, type HealthReport, healthSince, type Store } from "../state/index.ts";
import { loadIndex, type Vault } from "../vault/index.ts";

/** The report for the window that ends at `now` (ms); no store (no state file yet) is no recall. */
export async function recallHealth(vault: Vault, store: Store | null, now: number): Promise<HealthReport> {
  const since = healthSince(now);
  const usage = store ? await store.cardUsage(since) : { recalls: 0, cards: [] };
  // No recall, nothing to judge: a large vault is not decoded for an empty report.
  return cardHealth(usage.recalls === 0 ? [] : judgedCards(vault), usage, since);
}

/**
 * The cards an index may list by themselves (enabled, automatic), read from the vault's index a row
 * decoded at a time and none kept: all 100k cards at once held about 250 MB.
 */
function judgedCards(vault: Vault): string[] {
  const { entries } = loadIndex(vault);
  const { paths, rows } = entries.enabledRows();
  const out: string[] = [];
  for (let i = 0; i < paths.length; i++) {
    const card = entries.decode(paths[i]!, rows[i]!);
    if (card && rulesOf(card).policy === "automatic") out.push(`${card.kind}/${card.key}`);
  }
  return out;
}

const percent = (rate: number | null) => (rate === null ? "–" : `${Math.round(rate * 100)}%`);
const day = (ms: number | null) => (ms === null ? "never" : new Date(ms).toISOString().slice(0, 10));

/** The report in words, for the terminal: a summary, then the cards worth a look, by class. */
export function describeHealth(report: HealthReport, options: { healthy?: boolean } = {}): string[] {
  if (report.recalls === 0) {
    return [
      `No index recalls in the last ${report.windowDays} days: cards are judged once the hook or the`,
      "gateway runs with --inject index and an agent opens cards with read_card.",
    ];
  }
  const { counts } = report;
  const lines = [
    `Recall health, last ${report.windowDays} days (${report.recalls} index recall(s)): ${counts.dead} dead, ` +
      `${counts.noisy} noisy, ${counts.underperforming} underperforming, ${counts.healthy} healthy.`,
  ];
  const dead = report.cards.filter((c) => c.class === "dead").map((c) => c.card);
  if (dead.length > 0) lines.push(`  dead (listed in no recall): ${shortList(dead)}`);
  for (const c of report.cards) {
    if (c.class === "dead" || (c.class === "healthy" && !options.healthy)) continue;
    lines.push(
      `  ${c.class.padEnd(15)} ${c.card}: listed ${c.recalled}, opened ${c.opened} (${percent(c.openRate)}), ` +
        `last listed ${day(c.lastSeen)}, last opened ${day(c.lastOpened)}`,
    );
  }
  return lines;
}

/** At most ten names, then how many more. */
function shortList(names: readonly string[]): string {
  const SHOWN = 10;
  const rest = names.length - SHOWN;
  return rest > 0 ? `${names.slice(0, SHOWN).join(", ")} and ${rest} more` : names.join(", ");
}
