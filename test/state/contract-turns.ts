/**
 * The turn-record part of the Store contract (src/state/types.ts `recordTurn` … `days`), run by every
 * backend through `storeContract`: records replaced on a retry, bare records from usage alone, the
 * caps, blame, and per-day totals that add up and outlive the conversations the cap drops.
 */

import { describe, expect, test } from "bun:test";
import type { Limits, Store } from "../../src/state/index.ts";
import { noon, turnRecord, usage } from "./contract.ts";

type Fresh = (limits?: Partial<Limits>) => Promise<{ store: Store; again: () => Promise<Store> }>;

const early = (cards: string[]) => ({
  tier: "stable" as const,
  where: "system",
  text: "y".repeat(300),
  cards,
  early: true,
});

export function turnRecordContract(name: string, fresh: Fresh): void {
  describe(`${name} store: turn records`, () => {
    test("turn records are listed by conversation and turn, by time, and by the conversations seen", async () => {
      const { store, again } = await fresh();
      const a1 = turnRecord("c1", 1, noon(1));
      const a2 = turnRecord("c1", 2, noon(1, 5), { leftOut: [{ id: "place/Lyon", reason: "budget" }] });
      const b1 = turnRecord("c2", 1, noon(1, 3), { surface: "hook", api: undefined, model: undefined });
      for (const r of [a2, a1, b1]) await store.recordTurn(r);
      const other = await again();
      expect(await other.turns("c1", 10)).toEqual([a1, a2]);
      expect(await other.turns("c1", 1)).toEqual([a2]);
      expect(await other.turns("c1", 0)).toEqual([]);
      expect(await other.turns("nobody", 5)).toEqual([]);
      expect(await store.turnsSince(noon(1, 1))).toEqual([b1, a2]);
      expect(await store.conversations(10)).toEqual([
        { id: "c1", surface: "gateway", turns: 2, lastSeen: noon(1, 5), name: null },
        { id: "c2", surface: "hook", turns: 1, lastSeen: noon(1, 3), name: null },
      ]);
      expect(await store.conversations(1)).toHaveLength(1);
      expect(await store.conversations(0)).toEqual([]);
    });

    test("a conversation keeps the name a person gave it through later turns; null takes it away", async () => {
      const { store, again } = await fresh();
      await store.recordTurn(turnRecord("c1", 1, noon(1)));
      expect(await store.nameConversation("c1", "Planning the Lyon trip")).toBe(true);
      expect(await store.nameConversation("nobody", "x")).toBe(false);
      await store.commitTurn("c1", { turn: 2, now: noon(1, 1) });
      await store.recordTurn(turnRecord("c1", 2, noon(1, 1)));
      expect((await (await again()).conversations(5))[0]).toMatchObject({
        id: "c1",
        name: "Planning the Lyon trip",
      });
      await store.nameConversation("c1", null);
      expect((await store.conversations(5))[0]!.name).toBeNull();
    });

    test("a conversation dropped by the cap takes its name with it", async () => {
      const { store } = await fresh({ conversations: 1 });
      await store.recordTurn(turnRecord("c1", 1, noon(1)));
      await store.nameConversation("c1", "old");
      await store.recordTurn(turnRecord("c2", 1, noon(2)));
      await store.recordTurn(turnRecord("c1", 1, noon(3)));
      expect((await store.conversations(5)).map((c) => [c.id, c.name])).toEqual([["c1", null]]);
    });

    test("a turn record makes its conversation seen and leaves its turn clock alone", async () => {
      const { store } = await fresh();
      await store.recordTurn(turnRecord("c1", 3, 50));
      expect(await store.loadConversation("c1")).toEqual({
        id: "c1",
        turn: 0,
        lastSeen: 50,
        injections: [],
        replays: [],
        timed: {},
      });
      await store.commitTurn("c1", { turn: 3, now: 60 });
      await store.recordTurn(turnRecord("c1", 3, 40));
      expect(await store.loadConversation("c1")).toMatchObject({ turn: 3, lastSeen: 60 });
    });

    test("every response's usage adds to its turn: a retry and a tool loop are billed too", async () => {
      const { store } = await fresh();
      const record = turnRecord("c1", 1, noon(1));
      await store.recordTurn(record);
      await store.recordUsage("c1", 1, usage(1000), noon(1, 1));
      await store.recordUsage("c1", 1, usage(800, 200), noon(1, 2));
      expect(await store.turns("c1", 5)).toEqual([
        { ...record, usage: { uncached: 1800, cacheRead: 200, cacheWrite: 0, output: 20 }, requests: 2 },
      ]);
      expect(await store.days("2025-03-01")).toEqual([
        expect.objectContaining({ day: "2025-03-01", turns: 1, measured: 1, uncached: 1800, cacheRead: 200 }),
      ]);
    });

    test("a new record for a turn replaces it and keeps what the turn was billed: the conversation adds up to its day", async () => {
      const { store, again: reopen } = await fresh();
      await store.recordTurn(turnRecord("c1", 1, noon(1)));
      await store.recordUsage("c1", 1, usage(1000), noon(1, 1));
      const again = turnRecord("c1", 1, noon(1, 2), { blocks: [] });
      await store.recordTurn(again);
      expect(await store.turns("c1", 5)).toEqual([{ ...again, usage: usage(1000), requests: 1 }]);
      await store.recordUsage("c1", 1, usage(800, 200), noon(1, 3));
      const billed = { ...again, usage: { ...usage(1800, 200), output: 20 }, requests: 2 };
      expect(await (await reopen()).turns("c1", 5)).toEqual([billed]);
      const [day] = await store.days("2025-03-01");
      expect(day).toEqual(
        expect.objectContaining({ day: "2025-03-01", turns: 1, measured: 1, uncached: 1800, cacheRead: 200 }),
      );
      // What `stats` shows for the conversation is what the day counts.
      const turns = await store.turns("c1", 5);
      expect(turns.reduce((n, t) => n + (t.usage?.uncached ?? 0), 0)).toBe(day!.uncached);
      expect(turns.reduce((n, t) => n + (t.usage?.output ?? 0), 0)).toBe(day!.output);
    });

    test("usage for a turn with no record makes a bare one, which counts in its day with no saving", async () => {
      const { store } = await fresh();
      await store.recordUsage("c1", 4, usage(500, 100), noon(2));
      expect(await store.turns("c1", 5)).toEqual([
        {
          conversation: "c1",
          turn: 4,
          at: noon(2),
          surface: "gateway",
          blocks: [],
          replayedChars: 0,
          leftOut: [],
          promptChars: 0,
          counterfactual: { promptChars: 0, cachedChars: 0 },
          sharedChars: 0,
          usage: usage(500, 100),
          requests: 1,
        },
      ]);
      expect(await store.days("2025-03-01")).toEqual([
        expect.objectContaining({
          day: "2025-03-02",
          turns: 1,
          measured: 1,
          cost: 550,
          counterfactualCost: 550,
        }),
      ]);
    });

    test("each UTC day holds the sum of its turns' shares", async () => {
      const { store, again } = await fresh();
      await store.recordTurn(turnRecord("c1", 1, noon(1)));
      await store.recordUsage("c1", 1, usage(1000), noon(1));
      const late = Date.UTC(2025, 2, 1, 23, 59);
      await store.recordTurn(
        turnRecord("c1", 2, late, { counterfactual: { promptChars: 3600, cachedChars: 0 } }),
      );
      await store.recordUsage("c1", 2, usage(200, 800), late);
      await store.recordTurn(turnRecord("c2", 1, Date.UTC(2025, 2, 2, 0, 1)));
      const days = await (await again()).days("2025-03-01");
      expect(days).toEqual([
        {
          day: "2025-03-01",
          turns: 2,
          measured: 2,
          uncached: 1200,
          cacheRead: 800,
          cacheWrite: 0,
          output: 20,
          injectedChars: 800,
          injectedTokens: 200,
          replayedTokens: 0,
          counterfactualCached: 0,
          counterfactualUncached: 1900,
          cost: 1600,
          counterfactualCost: 1900,
          misses: 0,
          blame: {},
        },
        expect.objectContaining({ day: "2025-03-02", turns: 1, measured: 0, injectedChars: 400, cost: 0 }),
      ]);
      expect((await store.days("2025-03-02")).map((d) => d.day)).toEqual(["2025-03-02"]);
    });

    test("a new record of a turn on a later day leaves the earlier day whole", async () => {
      const { store } = await fresh();
      await store.recordTurn(turnRecord("c1", 1, noon(1)));
      await store.recordUsage("c1", 1, usage(1000), noon(1));
      await store.recordTurn(turnRecord("c1", 1, noon(2)));
      expect(await store.days("2025-01-01")).toEqual([
        expect.objectContaining({ day: "2025-03-01", turns: 1, measured: 1, uncached: 1000 }),
        expect.objectContaining({ day: "2025-03-02", turns: 1, measured: 0, uncached: 0 }),
      ]);
    });

    test("a conversation keeps the records of its highest turns; one below them is neither kept nor counted", async () => {
      const { store } = await fresh({ turnsPerConversation: 2 });
      for (const t of [1, 2, 3]) await store.recordTurn(turnRecord("c1", t, noon(1, t)));
      expect((await store.turns("c1", 10)).map((r) => r.turn)).toEqual([2, 3]);
      await store.recordTurn(turnRecord("c1", 1, noon(1, 9)));
      await store.recordUsage("c1", 1, usage(50), noon(1, 9));
      expect((await store.turns("c1", 10)).map((r) => r.turn)).toEqual([2, 3]);
      expect(await store.days("2025-03-01")).toEqual([
        expect.objectContaining({ turns: 3, measured: 0, injectedChars: 1200 }),
      ]);
    });

    test("a conversation dropped by the cap takes its turn records; its share of the days stays", async () => {
      const { store } = await fresh({ conversations: 1 });
      await store.recordTurn(turnRecord("c1", 1, noon(1)));
      await store.recordUsage("c1", 1, usage(1000), noon(1));
      await store.recordTurn(turnRecord("c2", 1, noon(1, 1)));
      expect(await store.turns("c1", 5)).toEqual([]);
      expect((await store.conversations(5)).map((c) => c.id)).toEqual(["c2"]);
      expect((await store.turnsSince(0)).map((r) => r.conversation)).toEqual(["c2"]);
      expect(await store.days("2025-03-01")).toEqual([
        expect.objectContaining({ turns: 2, measured: 1, uncached: 1000, cost: 1000 }),
      ]);
    });

    test("a miss after an early block is blamed on its cards, counted per card in the day; later responses of the turn keep it", async () => {
      const { store } = await fresh();
      const r = turnRecord("c1", 2, noon(1), {
        promptChars: 8000,
        sharedChars: 6000,
        blocks: [early(["people/Alice", "place/Lyon"])],
      });
      await store.recordTurn(r);
      await store.recordUsage("c1", 2, usage(4000), noon(1));
      expect((await store.turns("c1", 1))[0]!.blame).toEqual(["people/Alice", "place/Lyon"]);
      expect(await store.days("2025-03-01")).toEqual([
        expect.objectContaining({ misses: 1, blame: { "people/Alice": 1, "place/Lyon": 1 } }),
      ]);
      // The next request of a tool loop reads what the first one wrote: the miss was the first's.
      await store.recordUsage("c1", 2, usage(1000, 3000), noon(1));
      expect((await store.turns("c1", 1))[0]!.blame).toEqual(["people/Alice", "place/Lyon"]);
      expect(await store.days("2025-03-01")).toEqual([
        expect.objectContaining({ misses: 1, blame: { "people/Alice": 1, "place/Lyon": 1 } }),
      ]);
    });

    test("a blame given with the record is not taken as it is: the store works it out", async () => {
      const { store } = await fresh();
      await store.recordTurn(turnRecord("c1", 1, noon(1), { blame: ["people/Mallory"] }));
      expect((await store.turns("c1", 1))[0]!.blame).toBeUndefined();
    });

    test("what the turn reads return is a copy", async () => {
      const { store } = await fresh();
      await store.recordTurn(turnRecord("c1", 1, noon(1)));
      const [got] = await store.turns("c1", 1);
      got!.blocks[0]!.cards.push("people/Bob");
      (await store.turnsSince(0))[0]!.leftOut.push({ id: "x/y", reason: "budget" });
      expect(await store.turns("c1", 1)).toEqual([turnRecord("c1", 1, noon(1))]);
    });

    test("turn records and usage from two handles at once all count", async () => {
      const { store, again } = await fresh();
      const other = await again();
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? store : other).recordUsage(i % 4 < 2 ? "shared" : `own${i}`, i, usage(10), noon(1)),
        ),
      );
      expect(await store.turns("shared", 50)).toHaveLength(10);
      expect(await other.days("2025-03-01")).toEqual([
        expect.objectContaining({ turns: 20, measured: 20, uncached: 200 }),
      ]);
    });
  });
}
