// `lorecards stats [--days N] [--conversation ID]`: what the turns cost, as the providers reported it
// (README "What it costs"): per day, the top conversations, the totals, the strip-and-reinject
// counterfactual and the saving, the cards blamed for cache misses; or one conversation turn by turn.
// `--cards`: per card, its index recalls and openings of the last 30 days and its class (README
// "Index mode and adoption"; check/recall-health.ts).
import { describeHealth, recallHealth } from "../check/recall-health.ts";
import { LoreError } from "../errors.ts";
import {
  type Figures,
  openStore,
  type StatsReport,
  type Store,
  stateUrl,
  summarize,
  type TurnReport,
  turnReports,
  windowOf,
} from "../state/index.ts";
import { openVault } from "../vault/index.ts";
import { toWire } from "../wire.ts";
import { defineCommand, jsonArg, print, printJson, vaultArg } from "./_shared.ts";
import { namedStore, storeArg } from "./_store.ts";
import { isDefaultVault, vaultPath } from "./_vault.ts";

/** The longest window asked for at once: ten years of days. */
const MAX_DAYS = 3660;

export const statsCommand = defineCommand({
  meta: {
    name: "stats",
    description: "what the turns cost: cache reads and writes, the saving, blamed cards",
  },
  args: {
    days: { type: "string", description: "the last N days, today included (UTC; default 7)", valueHint: "N" },
    conversation: {
      type: "string",
      description: "one conversation, turn by turn (an id from the list)",
      valueHint: "ID",
    },
    cards: {
      type: "boolean",
      description:
        "per card: index recalls, openings and class (dead, noisy, underperforming, healthy) over the last 30 days",
    },
    ...storeArg,
    ...vaultArg,
    ...jsonArg,
  },
  async run({ args }) {
    if (args.cards && (args.days !== undefined || args.conversation !== undefined))
      throw new LoreError(
        "usage",
        "--cards looks at the last 30 days of index recalls: it takes no --days or --conversation",
      );
    const days = daysOf(args.days);
    const vault = openVault(vaultPath(args), { create: isDefaultVault(args) });
    const store = await openStore(namedStore(args) ?? stateUrl(vault.root));
    try {
      if (args.cards) {
        const report = await recallHealth(vault, store, Date.now());
        if (args.json) printJson(toWire(report));
        else print(describeHealth(report, { healthy: true }).join("\n"));
        return 0;
      }
      if (args.conversation !== undefined) return await oneConversation(store, args.conversation, args.json);
      const { since, sinceAt } = windowOf(Date.now(), days);
      const report = summarize({
        since,
        days: await store.days(since),
        turns: await store.turnsSince(sinceAt),
      });
      if (args.json) printJson(toWire(report));
      else print(describe(report, days));
      return 0;
    } finally {
      await store.close();
    }
  },
});

async function oneConversation(store: Store, id: string, json: boolean | undefined): Promise<number> {
  const turns = turnReports(await store.turns(id, Number.MAX_SAFE_INTEGER));
  if (turns.length === 0) throw new LoreError("not_found", `no turns recorded for conversation "${id}"`);
  if (json) printJson(toWire({ conversation: id, turns }));
  else print(describeTurns(id, turns));
  return 0;
}

const whole = (n: number) => Math.round(n).toLocaleString("en-US");
const percent = (r: number | null) => (r === null ? "–" : `${(r * 100).toFixed(1)}%`);

/** Columns: a header, and how a row's figures read. */
const COLUMNS: [string, (f: Figures) => string][] = [
  ["turns", (f) => whole(f.turns)],
  ["measured", (f) => whole(f.measured)],
  ["uncached", (f) => whole(f.uncached)],
  ["cache read", (f) => whole(f.cacheRead)],
  ["cache write", (f) => whole(f.cacheWrite)],
  ["output", (f) => whole(f.output)],
  ["injected", (f) => whole(f.injectedTokens)],
  ["cost", (f) => whole(f.cost)],
  ["strip+reinject", (f) => whole(f.counterfactualCost)],
  ["saving", (f) => percent(f.savingRatio)],
];

function table(rows: { label: string; figures: Figures }[], labelHeader: string): string[] {
  const cells = [
    [labelHeader, ...COLUMNS.map(([h]) => h)],
    ...rows.map((r) => [r.label, ...COLUMNS.map(([, f]) => f(r.figures))]),
  ];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells.map((row) =>
    row
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
}

/** `--days`: a whole number from 1 to MAX_DAYS (default 7), one message for every way to miss it. */
function daysOf(value: string | undefined): number {
  if (value === undefined) return 7;
  const days = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!(days >= 1 && days <= MAX_DAYS))
    throw new LoreError("usage", `--days must be a whole number from 1 to ${MAX_DAYS}, got "${value}"`);
  return days;
}

/** "saved 519 (20.1%)" or "519 more (20.1% more)". */
function savingText(saving: number, ratio: number | null): string {
  const share = ratio === null ? "" : ` (${percent(Math.abs(ratio))}${saving < 0 ? " more" : ""})`;
  return saving >= 0 ? `saved ${whole(saving)}${share}` : `${whole(-saving)} more${share}`;
}

function describe(report: StatsReport, days: number): string {
  const lines = [
    `Turns of the last ${days} day(s), since ${report.since} (UTC); tokens as the providers reported them.`,
  ];
  if (report.totals.turns === 0) {
    lines.push(
      "No turns recorded yet. The gateway records every chat turn it handles and the usage its answer",
      "reports; the hook records its prompts (no usage reaches a hook).",
    );
    return lines.join("\n");
  }
  const t = report.totals;
  lines.push(
    "",
    ...table(
      [...report.days.map((d) => ({ label: d.day, figures: d })), { label: "total", figures: t }],
      "day",
    ),
    "",
    `Cost of input, in uncached-token equivalents: ${whole(t.cost)}; the original strip-and-reinject`,
    `would have cost ${whole(t.counterfactualCost)}: ${savingText(t.saving, t.savingRatio)}.`,
    `Read from the cache: ${percent(t.cacheHitRatio)} of input tokens. Cards added: ${whole(t.injectedChars)} characters` +
      (t.measured > 0 ? ` (${whole(t.injectedTokens)} tokens in measured turns).` : "."),
  );
  if (t.measured < t.turns)
    lines.push(
      `${whole(t.turns - t.measured)} turn(s) without usage (the hook's, or answers that reported none).`,
    );
  if (report.conversations.length > 0) {
    lines.push("", "Top conversations:");
    lines.push(
      ...table(
        report.conversations.map((c) => ({ label: `${c.id} (${c.surface})`, figures: c })),
        "conversation",
      ).map((l) => `  ${l}`),
    );
  }
  if (report.blame.length > 0) {
    lines.push("", "Cards blamed for cache misses (a block placed before what the cache held):");
    for (const b of report.blame) lines.push(`  ${b.card}: ${b.misses} miss${b.misses === 1 ? "" : "es"}`);
  }
  return lines.join("\n");
}

function describeTurns(id: string, turns: TurnReport[]): string {
  const lines = [`Conversation ${id}, ${turns.length} turn(s) kept:`];
  for (const t of turns) {
    const what = [t.surface, t.api, t.model].filter(Boolean).join(" ");
    lines.push("", `turn ${t.turn}  ${new Date(t.at).toISOString()}  ${what}`);
    for (const b of t.blocks)
      lines.push(
        `  + ${b.tier}, ${b.where}${b.early ? " (early)" : ""}: ${b.cards.join(", ")}  ${b.chars} chars`,
      );
    for (const l of t.leftOut) lines.push(`  - left out ${l.id}: ${l.reason}`);
    const u = t.usage;
    if (u) {
      const f = t.figures;
      lines.push(
        `  usage: ${whole(u.uncached)} uncached, ${whole(u.cacheRead)} cache read, ${whole(u.cacheWrite)} cache write, ${whole(u.output)} output`,
        `  cost ${whole(f.cost)}, strip-and-reinject ${whole(f.counterfactualCost)}, saving ${percent(f.savingRatio)}`,
      );
    } else lines.push("  no usage reported");
    if (t.blame.length > 0) lines.push(`  cache miss blamed on: ${t.blame.join(", ")}`);
  }
  return lines.join("\n");
}
