/**
 * What the turns cost, measured (README "What it costs"): pure arithmetic over turn records, shared by
 * the stores (a record's share of its day, blame) and the surfaces that report (`lorecards stats`,
 * `GET /api/stats`, the editor's panel). Nothing here reads a clock or a file.
 *
 * Providers count tokens; the gateway counts characters. Each turn with usage gives its own ratio
 * (total input tokens ÷ the characters of the prompt as sent), and every character count of that turn
 * (the blocks we added, the blocks we replayed, the counterfactual prompt) is turned into tokens with
 * it. The ratio also absorbs what the characters do not see (tool definitions, images), so derived
 * token counts are estimates; the usage figures themselves are the provider's own.
 *
 * The counterfactual is the original tool's strip-and-reinject: every turn's cards at the newest
 * message only, earlier ones stripped. Its cached part is what led its prompt unchanged since its
 * previous request, the rest uncached. It is conservative: it pays no cache writes, and a prefix too
 * short to be cached (under `MIN_CACHEABLE`) or a request with caching off (an Anthropic one that
 * neither read nor wrote the cache) reads nothing from it, as the real request would not.
 */

import type { DayTotals, TurnRecord, Usage } from "./types.ts";

/**
 * Input costs in hundredths of an uncached input token (integers, so sums are exact), per API, in
 * one place:
 * - Anthropic ("Prompt caching", pricing): a cache read costs 0.1× the base input price, a cache
 *   write 1.25× with the default 5-minute TTL (2× with the 1-hour TTL, which usage totals do not tell
 *   apart: counted at 1.25×).
 * - OpenAI, chat completions and Responses (openai.com/api/pricing, "Cached input" per model): cached
 *   input 0.5× for the GPT-4o and o1 generation ("Prompt Caching in the API", 2024), 0.25× for GPT-4.1,
 *   o3 and o4-mini, 0.1× for the GPT-5 family; writing the cache costs nothing extra.
 */
export const WEIGHTS = {
  anthropic: { read: 10, write: 125 },
  openai: [
    { model: /^gpt-5/, read: 10 },
    { model: /^(gpt-4\.1|o3|o4)/, read: 25 },
    { model: /./, read: 50 },
  ],
} as const;

/** The shortest prefix a provider caches (OpenAI: 1,024 tokens; Anthropic: 1,024 to 4,096 by model). */
export const MIN_CACHEABLE = 1024;

export interface Weights {
  read: number;
  write: number;
}

/** A turn's weights by its API (and, for OpenAI, model); a turn of no known API is costed as OpenAI's default. */
export function weightsFor(api?: TurnRecord["api"], model?: string): Weights {
  if (api === "anthropic") return WEIGHTS.anthropic;
  const name = (model ?? "").toLowerCase();
  const row = WEIGHTS.openai.find((w) => w.model.test(name)) ?? WEIGHTS.openai[WEIGHTS.openai.length - 1]!;
  return { read: row.read, write: 100 };
}

/** The turn's input tokens per character of its prompt, or null without usage or characters. */
export function tokensPerChar(record: TurnRecord): number | null {
  const u = record.usage;
  if (!u || record.promptChars <= 0) return null;
  return inputTokens(u) / record.promptChars;
}

export function inputTokens(u: Usage): number {
  return u.uncached + u.cacheRead + u.cacheWrite;
}

/** Whether this request used the cache at all: Anthropic caches only where asked; OpenAI always. */
function cachingOn(api: TurnRecord["api"], u: Usage): boolean {
  return api !== "anthropic" || u.cacheRead + u.cacheWrite > 0;
}

/**
 * The cards blamed for a cache miss on this turn: the cards of its `early` blocks, when the cache read
 * falls short (by more than the 10% the character-to-token estimate may be off) of what the prefix it
 * shares with the previous request should have given, that prefix being long enough to be cached, and caching on. Otherwise undefined.
 */
export function blameFor(record: TurnRecord): string[] | undefined {
  const u = record.usage;
  const early = record.blocks.filter((b) => b.early);
  const ratio = tokensPerChar(record);
  if (!u || early.length === 0 || ratio === null || !cachingOn(record.api, u)) return undefined;
  const expected = record.sharedChars * ratio;
  if (expected < MIN_CACHEABLE || u.cacheRead >= expected * 0.9) return undefined;
  return [...new Set(early.flatMap((b) => b.cards))];
}

/**
 * The numbers a turn adds to its day and its conversation: a day's totals (types.ts `DayTotals`, where
 * each is said) with its costs in hundredths (`WEIGHTS`), integers so that sums stay exact.
 */
export interface Share extends Omit<DayTotals, "day" | "cost" | "counterfactualCost"> {
  cost100: number;
  counterfactualCost100: number;
}

export function emptyShare(): Share {
  return {
    turns: 0,
    measured: 0,
    uncached: 0,
    cacheRead: 0,
    cacheWrite: 0,
    output: 0,
    injectedChars: 0,
    injectedTokens: 0,
    replayedTokens: 0,
    counterfactualCached: 0,
    counterfactualUncached: 0,
    cost100: 0,
    counterfactualCost100: 0,
    misses: 0,
    blame: {},
  };
}

/** One turn record's share. A turn without usage counts as a turn and its characters, no tokens. */
export function shareOf(record: TurnRecord): Share {
  const share = emptyShare();
  share.turns = 1;
  share.injectedChars = record.blocks.reduce((n, b) => n + b.text.length, 0);
  const u = record.usage;
  if (!u) return share;
  const w = weightsFor(record.api, record.model);
  Object.assign(share, {
    measured: 1,
    uncached: u.uncached,
    cacheRead: u.cacheRead,
    cacheWrite: u.cacheWrite,
    output: u.output,
    cost100: u.uncached * 100 + u.cacheRead * w.read + u.cacheWrite * w.write,
  });
  const ratio = tokensPerChar(record);
  if (ratio === null) {
    // A bare record (usage, no prompt we saw): the counterfactual is the turn itself, no saving claimed.
    share.counterfactualCached = u.cacheRead;
    share.counterfactualUncached = u.uncached + u.cacheWrite;
    share.counterfactualCost100 = share.cost100;
  } else {
    const cf = record.counterfactual;
    const total = Math.round(cf.promptChars * ratio);
    let cached = Math.round(Math.min(cf.cachedChars, cf.promptChars) * ratio);
    if (cached < MIN_CACHEABLE || !cachingOn(record.api, u)) cached = 0;
    share.injectedTokens = Math.round(share.injectedChars * ratio);
    share.replayedTokens = Math.round(record.replayedChars * ratio);
    share.counterfactualCached = cached;
    share.counterfactualUncached = total - cached;
    share.counterfactualCost100 = (total - cached) * 100 + cached * w.read;
  }
  const blame = record.blame ?? [];
  if (blame.length > 0) {
    share.misses = 1;
    for (const card of blame) share.blame[card] = 1;
  }
  return share;
}

/** `a + sign × b`, field by field; a blame count that reaches 0 is removed. */
export function addShare(a: Share, b: Share, sign: 1 | -1 = 1): Share {
  const out = { ...a, blame: { ...a.blame } };
  for (const key of Object.keys(out) as (keyof Share)[]) {
    if (key !== "blame") out[key] = a[key] + sign * b[key];
  }
  for (const [card, n] of Object.entries(b.blame)) {
    const next = (out.blame[card] ?? 0) + sign * n;
    if (next === 0) delete out.blame[card];
    else out.blame[card] = next;
  }
  return out;
}

/** The UTC day of a time in milliseconds, `YYYY-MM-DD`. */
export function dayOf(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** A share as people read it: costs in uncached-token equivalents. */
export function dayTotals(day: string, share: Share): DayTotals {
  const { cost100, counterfactualCost100, ...rest } = share;
  return {
    day,
    ...rest,
    blame: { ...rest.blame },
    cost: cost100 / 100,
    counterfactualCost: counterfactualCost100 / 100,
  };
}

/** The stored form back: costs in hundredths again (exact: they were made from integers). */
export function shareOfDay(totals: DayTotals): Share {
  const { day: _day, cost, counterfactualCost, ...rest } = totals;
  return {
    ...rest,
    blame: { ...rest.blame },
    cost100: Math.round(cost * 100),
    counterfactualCost100: Math.round(counterfactualCost * 100),
  };
}
