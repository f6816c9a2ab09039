/**
 * The arithmetic of `lorecards stats` (src/state/stats.ts, report.ts): the weights per API, a turn's
 * share (tokens from the turn's own ratio, the counterfactual and its guards), blame, and reports whose
 * sums add up.
 */

import { describe, expect, test } from "bun:test";
import { type DayTotals, openStore, summarize, type TurnRecord, windowOf } from "../../src/state/index.ts";
import { blameFor, shareOf, weightsFor } from "../../src/state/stats.ts";
import { noon, turnRecord, usage } from "./contract.ts";

describe("weights", () => {
  test.each([
    ["anthropic", "claude-sonnet-4-5", 10, 125],
    ["openai", "gpt-4o", 50, 100],
    ["openai", "gpt-4o-mini-2024-07-18", 50, 100],
    ["openai", "gpt-4.1-mini", 25, 100],
    ["responses", "o3", 25, 100],
    ["openai", "o4-mini", 25, 100],
    ["openai", "gpt-5", 10, 100],
    ["responses", "GPT-5-mini", 10, 100],
    [undefined, undefined, 50, 100],
  ] as const)("%s %s: a cached token costs %d hundredths, a written one %d", (api, model, read, write) => {
    expect(weightsFor(api, model)).toEqual({ read, write });
  });
});

const base = (extra: Partial<TurnRecord>) => turnRecord("c", 2, noon(1), extra);

describe("a turn's share", () => {
  test("without usage: one turn and its characters, no tokens", () => {
    expect(shareOf(base({}))).toMatchObject({
      turns: 1,
      measured: 0,
      injectedChars: 400,
      injectedTokens: 0,
      cost100: 0,
    });
  });

  test.each([
    [
      "OpenAI: tokens from the turn's ratio, the counterfactual's cached part at the read weight",
      {
        usage: usage(500, 2000),
        promptChars: 10_000,
        replayedChars: 800,
        counterfactual: { promptChars: 9600, cachedChars: 6000 },
      },
      {
        injectedTokens: 100,
        replayedTokens: 200,
        counterfactualCached: 1500,
        counterfactualUncached: 900,
        cost100: 150_000,
        counterfactualCost100: 165_000,
      },
    ],
    [
      "a counterfactual prefix shorter than a provider caches reads nothing",
      {
        usage: usage(500, 2000),
        promptChars: 10_000,
        counterfactual: { promptChars: 9600, cachedChars: 4000 },
      },
      { counterfactualCached: 0, counterfactualUncached: 2400, counterfactualCost100: 240_000 },
    ],
    [
      "Anthropic: writes at 1.25×, reads at 0.1×",
      {
        api: "anthropic",
        usage: usage(100, 3000, 900),
        promptChars: 16_000,
        counterfactual: { promptChars: 16_000, cachedChars: 8000 },
      },
      {
        counterfactualCached: 2000,
        counterfactualUncached: 2000,
        cost100: 10_000 + 30_000 + 112_500,
        counterfactualCost100: 200_000 + 20_000,
      },
    ],
    [
      "Anthropic with caching off on this request: the counterfactual reads nothing either",
      {
        api: "anthropic",
        usage: usage(4000),
        promptChars: 16_000,
        counterfactual: { promptChars: 16_000, cachedChars: 12_000 },
      },
      {
        counterfactualCached: 0,
        counterfactualUncached: 4000,
        cost100: 400_000,
        counterfactualCost100: 400_000,
      },
    ],
    [
      "a bare record (no prompt seen): the counterfactual is the turn itself",
      { api: "anthropic", usage: usage(100, 3000, 900), promptChars: 0, blocks: [] },
      {
        injectedTokens: 0,
        counterfactualCached: 3000,
        counterfactualUncached: 1000,
        cost100: 152_500,
        counterfactualCost100: 152_500,
      },
    ],
  ] as const)("%s", (_name, extra, expected) => {
    expect(shareOf(base(extra as Partial<TurnRecord>))).toMatchObject({ turns: 1, measured: 1, ...expected });
  });

  test("a blamed turn counts one miss, and one for each card", () => {
    expect(shareOf(base({ usage: usage(1), blame: ["a/x", "b/y"] }))).toMatchObject({
      misses: 1,
      blame: { "a/x": 1, "b/y": 1 },
    });
  });
});

describe("blame", () => {
  const early = {
    tier: "stable" as const,
    where: "system",
    text: "s",
    cards: ["people/Alice", "place/Lyon"],
    early: true,
  };
  const late = { tier: "volatile" as const, where: "newest user message", text: "v", cards: ["thing/Key"] };
  // 8,000 characters of prompt and 4,000 input tokens: half a token a character.
  const turn = (extra: Partial<TurnRecord>) =>
    base({ promptChars: 8000, sharedChars: 6000, blocks: [early, late], usage: usage(4000), ...extra });

  test.each([
    ["an early block and nothing read of a 3,000-token shared prefix", {}, ["people/Alice", "place/Lyon"]],
    ["as much read as the shared prefix", { usage: usage(1000, 3000) }, undefined],
    ["half of it read: short", { usage: usage(2500, 1500) }, ["people/Alice", "place/Lyon"]],
    ["all but 5% read: within the estimate's error", { usage: usage(1150, 2850) }, undefined],
    ["no early block", { blocks: [late] }, undefined],
    ["a shared prefix too short to be cached", { sharedChars: 2000 }, undefined],
    ["Anthropic with caching off", { api: "anthropic" }, undefined],
    [
      "Anthropic writing the cache, reading none of the prefix",
      { api: "anthropic", usage: usage(100, 0, 3900) },
      ["people/Alice", "place/Lyon"],
    ],
    ["no usage", { usage: undefined }, undefined],
    ["no prompt seen", { promptChars: 0 }, undefined],
  ] as const)("%s → %j", (_name, extra, expected) => {
    expect(blameFor(turn(extra as Partial<TurnRecord>))).toEqual(expected as string[] | undefined);
  });
});

describe("the report", () => {
  test("the window of the last N UTC days starts at midnight of its first day", () => {
    expect(windowOf(Date.UTC(2025, 2, 10, 5), 7)).toEqual({
      since: "2025-03-04",
      sinceAt: Date.UTC(2025, 2, 4),
    });
    expect(windowOf(Date.UTC(2025, 2, 10, 5), 0).since).toBe("2025-03-10");
  });

  test("its sums add up: days to totals, conversations to the same totals, saving to counterfactual minus cost", async () => {
    const store = await openStore("memory:");
    const apis = ["openai", "anthropic", "responses", undefined] as const;
    for (let i = 0; i < 36; i++) {
      const record = turnRecord(`c${i % 5}`, i, noon(1 + (i % 3), i), {
        api: apis[i % 4],
        model: ["gpt-4o", "claude-x", "gpt-5", "o3"][i % 4],
        promptChars: 6000 + 100 * i,
        replayedChars: 50 * i,
        sharedChars: 4000,
        counterfactual: { promptChars: 5800 + 90 * i, cachedChars: 5000 },
        blocks: [
          {
            tier: "stable",
            where: "system",
            text: "z".repeat(i * 10),
            cards: [`k/${i % 3}`],
            early: i % 2 === 0,
          },
        ],
      });
      await store.recordTurn(record);
      if (i % 6 !== 5)
        await store.recordUsage(
          record.conversation,
          i,
          usage(3000 + i, (i % 4) * 700, i % 2 ? 300 : 0, i),
          noon(2),
        );
    }
    const since = "2025-03-01";
    const report = summarize({
      since,
      days: await store.days(since),
      turns: await store.turnsSince(0),
      top: 100,
    });
    const sum = (rows: readonly object[], key: string) =>
      rows.reduce((n, r) => n + ((r as Record<string, number>)[key] ?? 0), 0);
    for (const key of [
      "turns",
      "measured",
      "uncached",
      "cacheRead",
      "cacheWrite",
      "output",
      "injectedChars",
      "injectedTokens",
      "counterfactualCached",
      "counterfactualUncached",
      "misses",
    ]) {
      expect([key, sum(report.days, key)]).toEqual([key, report.totals[key as "turns"]]);
      expect([key, sum(report.conversations, key)]).toEqual([key, report.totals[key as "turns"]]);
    }
    expect(sum(report.days, "cost")).toBeCloseTo(report.totals.cost, 6);
    expect(sum(report.conversations, "counterfactualCost")).toBeCloseTo(report.totals.counterfactualCost, 6);
    expect(report.totals.turns).toBe(36);
    expect(report.totals.measured).toBe(30);
    expect(report.totals.saving).toBeCloseTo(report.totals.counterfactualCost - report.totals.cost, 6);
    expect(report.totals.savingRatio).toBeCloseTo(report.totals.saving / report.totals.counterfactualCost, 9);
    // Every miss blames one card or more: each card's count is at most the misses, together at least.
    expect(report.totals.misses).toBeGreaterThan(0);
    for (const b of report.blame) expect(b.misses).toBeLessThanOrEqual(report.totals.misses);
    expect(sum(report.blame, "misses")).toBeGreaterThanOrEqual(report.totals.misses);
    expect(report.conversations.map((c) => c.cost)).toEqual(
      [...report.conversations.map((c) => c.cost)].sort((a, b) => b - a),
    );
    await store.close();
  });

  test("days before the window, and turns before it, are left out; a quiet window is all zeros", () => {
    const report = summarize({ since: "2025-03-05", days: [], turns: [turnRecord("c", 1, noon(4))] });
    expect(report).toMatchObject({ days: [], conversations: [], blame: [] });
    expect(report.totals).toMatchObject({
      turns: 0,
      cost: 0,
      saving: 0,
      savingRatio: null,
      cacheHitRatio: null,
    });
  });

  test("blamed cards are listed most misses first", () => {
    const day = (blame: Record<string, number>): DayTotals => ({
      day: "2025-03-01",
      turns: 1,
      measured: 1,
      uncached: 0,
      cacheRead: 0,
      cacheWrite: 0,
      output: 0,
      injectedChars: 0,
      injectedTokens: 0,
      replayedTokens: 0,
      counterfactualCached: 0,
      counterfactualUncached: 0,
      cost: 0,
      counterfactualCost: 0,
      misses: 1,
      blame,
    });
    const report = summarize({
      since: "2025-03-01",
      days: [day({ "b/y": 1, "a/x": 2 }), day({ "b/y": 2 })],
      turns: [],
    });
    expect(report.blame).toEqual([
      { card: "b/y", misses: 3 },
      { card: "a/x", misses: 2 },
    ]);
  });
});
