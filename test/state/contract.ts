/**
 * The Store contract: every rule of src/state/types.ts as a test, run by each backend's own test file
 * (sqlite.test.ts, memory.test.ts) the way hono's cache adapters share one suite. A backend passes a
 * `place()` that makes fresh state for one test; every `open()` on a place is another handle on that
 * same state (another connection, another process), so reopening and sharing are part of the contract.
 */

import { afterEach, describe, expect, test } from "bun:test";
import type { HitEntry, Limits, ReplayRecord, Store, TurnRecord, Usage } from "../../src/state/index.ts";
import { loreContract } from "./contract-lore.ts";
import { recallContract } from "./contract-recalls.ts";
import { turnRecordContract } from "./contract-turns.ts";

export interface Place {
  open(limits?: Partial<Limits>): Promise<Store>;
  dispose(): void;
}

export function record(anchor: number, turn: number, ids: string[], hash = `h${anchor}`): ReplayRecord {
  return {
    anchor,
    hash,
    place: "prefix",
    text: `block ${anchor}`,
    turn,
    cards: ids.map((id) => ({ id, version: "1:1" })),
  };
}

/** Noon UTC on 2025-03-<day>. */
export const noon = (day: number, minute = 0) => Date.UTC(2025, 2, day, 12, minute);

/** A gateway turn that added one block of `text` with `cards`; 4,000 characters of prompt. */
export function turnRecord(
  conversation: string,
  turn: number,
  at: number,
  extra: Partial<TurnRecord> = {},
): TurnRecord {
  return {
    conversation,
    turn,
    at,
    surface: "gateway",
    api: "openai",
    model: "gpt-4o",
    blocks: [
      { tier: "volatile", where: "newest user message", text: "x".repeat(400), cards: ["people/Alice"] },
    ],
    replayedChars: 0,
    leftOut: [],
    promptChars: 4000,
    counterfactual: { promptChars: 4000, cachedChars: 0 },
    sharedChars: 0,
    ...extra,
  };
}

export const usage = (uncached: number, cacheRead = 0, cacheWrite = 0, output = 10): Usage => ({
  uncached,
  cacheRead,
  cacheWrite,
  output,
});

export const hit = (i: number, message = `message ${i}`): HitEntry => ({
  time: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(),
  source: "gateway",
  keys: [`card${i}`],
  words: [`word${i}`],
  message,
});

export function storeContract(name: string, place: () => Place): void {
  const places: Place[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const p of places.splice(0)) p.dispose();
  });
  /** A fresh state and a first handle on it; `again()` opens another handle on the same state. */
  async function fresh(limits?: Partial<Limits>) {
    const p = place();
    places.push(p);
    const again = async () => {
      const s = await p.open(limits);
      stores.push(s);
      return s;
    };
    return { store: await again(), again };
  }

  describe(`${name} store: conversations`, () => {
    test("a conversation never seen loads empty", async () => {
      const { store } = await fresh();
      expect(await store.loadConversation("c1")).toEqual({
        id: "c1",
        turn: 0,
        lastSeen: 0,
        injections: [],
        replays: [],
        timed: {},
      });
    });

    test("a commit records injections, the replay record, the turn and the time seen", async () => {
      const { store } = await fresh();
      const r = record(1, 1, ["people/Alice"]);
      await store.commitTurn("c1", {
        turn: 1,
        now: 1000,
        injections: [{ id: "people/Alice", version: "1:1", turn: 1 }],
        replay: r,
      });
      expect(await store.loadConversation("c1")).toEqual({
        id: "c1",
        turn: 1,
        lastSeen: 1000,
        injections: [{ id: "people/Alice", version: "1:1", turn: 1 }],
        replays: [r],
        timed: {},
      });
    });

    test("the first record for a message wins, so a retry of the turn replays the same bytes", async () => {
      const { store } = await fresh();
      await store.commitTurn("c1", { turn: 1, now: 1, replay: record(1, 1, ["people/Alice"]) });
      await store.commitTurn("c1", {
        turn: 1,
        now: 2,
        replay: { ...record(1, 1, ["people/Bob"]), text: "other" },
      });
      expect((await store.loadConversation("c1")).replays.map((r) => r.text)).toEqual(["block 1"]);
    });

    test("a turn index that goes backwards starts a new clock and drops what came later", async () => {
      const { store } = await fresh();
      await store.commitTurn("c1", {
        turn: 1,
        now: 1,
        injections: [{ id: "a/x", version: "v", turn: 1 }],
        replay: record(1, 1, ["a/x"]),
      });
      await store.commitTurn("c1", {
        turn: 5,
        now: 2,
        injections: [{ id: "a/y", version: "v", turn: 5 }],
        replay: record(9, 5, ["a/y"]),
      });
      await store.commitTurn("c1", { turn: 2, now: 3 });
      const c = await store.loadConversation("c1");
      expect(c.turn).toBe(2);
      expect(c.injections.map((i) => i.id)).toEqual(["a/x"]);
      expect(c.replays.map((r) => r.anchor)).toEqual([1]);
    });

    test("after a new clock, a message whose record was dropped takes the new record", async () => {
      const { store } = await fresh();
      await store.commitTurn("c1", { turn: 4, now: 1, replay: record(3, 4, ["a/x"]) });
      await store.commitTurn("c1", { turn: 2, now: 2, replay: { ...record(3, 2, ["a/y"]), text: "new" } });
      expect((await store.loadConversation("c1")).replays).toEqual([
        { ...record(3, 2, ["a/y"]), text: "new" },
      ]);
    });

    test("a card injected again keeps the later of its turns and takes the new version", async () => {
      const { store } = await fresh();
      await store.commitTurn("c1", { turn: 4, now: 1, injections: [{ id: "a/x", version: "v1", turn: 4 }] });
      await store.commitTurn("c1", { turn: 4, now: 2, injections: [{ id: "a/x", version: "v2", turn: 3 }] });
      expect((await store.loadConversation("c1")).injections).toEqual([
        { id: "a/x", version: "v2", turn: 4 },
      ]);
    });

    test("the time seen only moves forward; the first opening given is kept", async () => {
      const { store } = await fresh();
      await store.commitTurn("c1", { turn: 1, now: 50, opening: "o1" });
      await store.commitTurn("c1", { turn: 2, now: 40, opening: "o2" });
      expect(await store.loadConversation("c1")).toMatchObject({ turn: 2, lastSeen: 50 });
      expect(await store.findByOpening("o1")).toBe("c1");
      expect(await store.findByOpening("o2")).toBeNull();
    });

    test("the ledger lists by turn then id, replay records by anchor then turn", async () => {
      const { store } = await fresh();
      await store.commitTurn("c1", {
        turn: 2,
        now: 1,
        injections: ["b", "a"].map((k) => ({ id: `k/${k}`, version: "v", turn: 2 })),
        replay: record(5, 2, ["k/a"]),
      });
      await store.commitTurn("c1", {
        turn: 3,
        now: 2,
        injections: [{ id: "k/0", version: "v", turn: 1 }],
        replay: record(2, 3, ["k/0"]),
      });
      const c = await store.loadConversation("c1");
      expect(c.injections.map((i) => i.id)).toEqual(["k/0", "k/a", "k/b"]);
      expect(c.replays.map((r) => r.anchor)).toEqual([2, 5]);
    });

    test("a replay record keeps the role and tier it was given; one without them reads without them", async () => {
      const { store, again } = await fresh();
      const placed: ReplayRecord = {
        ...record(2, 1, ["a/x"]),
        place: "before",
        role: "user",
        tier: "placed",
      };
      await store.commitTurn("c1", { turn: 1, now: 1, replay: placed });
      await store.commitTurn("c1", { turn: 2, now: 2, replay: record(4, 2, ["a/y"]) });
      expect((await (await again()).loadConversation("c1")).replays).toEqual([placed, record(4, 2, ["a/y"])]);
    });

    test("what a load returns is a copy: changing it changes nothing stored", async () => {
      const { store } = await fresh();
      await store.commitTurn("c1", {
        turn: 1,
        now: 1,
        injections: [{ id: "a/x", version: "v", turn: 1 }],
        replay: record(1, 1, ["a/x"]),
      });
      const first = await store.loadConversation("c1");
      first.injections[0]!.turn = 99;
      first.replays[0]!.cards.push({ id: "a/y", version: "v" });
      first.replays.pop();
      const again = await store.loadConversation("c1");
      expect(again.injections[0]!.turn).toBe(1);
      expect(again.replays).toEqual([record(1, 1, ["a/x"])]);
    });
  });

  describe(`${name} store: caps`, () => {
    test("a conversation keeps at most the cap of cards, the most recent ones", async () => {
      const { store } = await fresh({ cardsPerConversation: 3, replaysPerConversation: 2 });
      for (let t = 1; t <= 5; t++) {
        await store.commitTurn("c1", {
          turn: t,
          now: t,
          injections: [{ id: `k/${t}`, version: "v", turn: t }],
          replay: record(t * 2, t, [`k/${t}`]),
        });
      }
      const c = await store.loadConversation("c1");
      expect(c.injections.map((i) => i.id)).toEqual(["k/3", "k/4", "k/5"]);
      expect(c.replays.map((r) => r.anchor)).toEqual([8, 10]);
    });

    test("cards of the same turn beyond the cap: the smallest ids stay", async () => {
      const { store } = await fresh({ cardsPerConversation: 2 });
      const injections = ["d", "b", "c", "a"].map((k) => ({ id: `k/${k}`, version: "v", turn: 1 }));
      await store.commitTurn("c1", { turn: 1, now: 1, injections });
      expect((await store.loadConversation("c1")).injections.map((i) => i.id)).toEqual(["k/a", "k/b"]);
    });

    test("beyond the conversation cap the least recently seen conversation is dropped", async () => {
      const { store } = await fresh({ conversations: 2 });
      await store.commitTurn("old", { turn: 1, now: 1, replay: record(0, 1, ["a/x"]) });
      await store.commitTurn("mid", { turn: 1, now: 2 });
      await store.commitTurn("old", { turn: 2, now: 3 });
      await store.commitTurn("new", { turn: 1, now: 4 });
      expect((await store.loadConversation("mid")).lastSeen).toBe(0);
      expect((await store.loadConversation("old")).replays).toHaveLength(1);
      expect((await store.loadConversation("new")).turn).toBe(1);
    });

    test("past its cap by no more than a tenth the store drops nothing; past that, back to the cap at once", async () => {
      const { store } = await fresh({ conversations: 10 });
      const seen = async () =>
        (await Promise.all(Array.from({ length: 12 }, (_, i) => store.loadConversation(`c${i + 1}`))))
          .filter((c) => c.lastSeen > 0)
          .map((c) => c.id);
      for (let i = 1; i <= 11; i++) await store.commitTurn(`c${i}`, { turn: 1, now: i });
      expect(await seen()).toEqual(Array.from({ length: 11 }, (_, i) => `c${i + 1}`));
      await store.commitTurn("c12", { turn: 1, now: 12 });
      expect(await seen()).toEqual(Array.from({ length: 10 }, (_, i) => `c${i + 3}`));
    });

    test("a dropped conversation takes everything it held; seen again, it starts empty", async () => {
      const { store } = await fresh({ conversations: 1 });
      await store.commitTurn("a", {
        turn: 3,
        now: 1,
        injections: [{ id: "k/x", version: "v", turn: 3 }],
        replay: record(1, 3, ["k/x"]),
        opening: "oa",
      });
      await store.advanceTurn("b", 2);
      expect(await store.loadConversation("a")).toEqual({
        id: "a",
        turn: 0,
        lastSeen: 0,
        injections: [],
        replays: [],
        timed: {},
      });
      expect(await store.findByOpening("oa")).toBeNull();
      await store.commitTurn("a", { turn: 1, now: 3 });
      expect(await store.loadConversation("a")).toMatchObject({ turn: 1, injections: [], replays: [] });
    });
  });

  describe(`${name} store: the timed-effects memory`, () => {
    const sticky = { "people/Alice": { last: 3, stickyUntil: 6 } };

    test("a commit with a timed memory keeps it; a later commit without one leaves it as it was", async () => {
      const { store, again } = await fresh();
      await store.commitTurn("c1", { turn: 1, now: 1, timed: sticky });
      await store.commitTurn("c1", { turn: 2, now: 2, injections: [{ id: "a/x", version: "v", turn: 2 }] });
      expect((await store.loadConversation("c1")).timed).toEqual(sticky);
      expect((await (await again()).loadConversation("c1")).timed).toEqual(sticky);
      await store.advanceTurn("c1", 3);
      expect((await store.loadConversation("c1")).timed).toEqual(sticky);
    });

    test("a commit with a timed memory replaces the stored one whole; an empty one clears it", async () => {
      const { store } = await fresh();
      await store.commitTurn("c1", { turn: 1, now: 1, timed: sticky });
      const cooling = { "people/Bob": { last: 5, cooldownUntil: 9 }, "people/Cy": { last: 5, spent: true } };
      await store.commitTurn("c1", { turn: 2, now: 2, timed: cooling });
      expect((await store.loadConversation("c1")).timed).toEqual(cooling);
      await store.commitTurn("c1", { turn: 3, now: 3, timed: {} });
      expect((await store.loadConversation("c1")).timed).toEqual({});
    });

    test("a new clock without a timed memory forgets the stored one; with one, it is kept", async () => {
      const { store } = await fresh();
      await store.commitTurn("c1", { turn: 4, now: 1, timed: sticky });
      await store.commitTurn("c1", { turn: 2, now: 2 });
      expect((await store.loadConversation("c1")).timed).toEqual({});
      await store.commitTurn("c1", { turn: 4, now: 3, timed: sticky });
      await store.commitTurn("c1", { turn: 1, now: 4, timed: sticky });
      expect((await store.loadConversation("c1")).timed).toEqual(sticky);
    });

    test("the memory keeps the cards that fired last, up to the card cap (then by id)", async () => {
      const { store } = await fresh({ cardsPerConversation: 2 });
      const timed = { "k/a": { last: 1 }, "k/b": { last: 7 }, "k/c": { last: 7 }, "k/d": { last: 2 } };
      await store.commitTurn("c1", { turn: 1, now: 1, timed });
      expect((await store.loadConversation("c1")).timed).toEqual({ "k/b": { last: 7 }, "k/c": { last: 7 } });
    });

    test("an evicted conversation takes its memory with it", async () => {
      const { store } = await fresh({ conversations: 1 });
      await store.commitTurn("a", { turn: 1, now: 1, timed: sticky });
      await store.commitTurn("b", { turn: 1, now: 2 });
      expect((await store.loadConversation("a")).timed).toEqual({});
    });
  });

  describe(`${name} store: clocks and openings`, () => {
    test("advance counts turns for callers that have no request to count", async () => {
      const { store } = await fresh();
      expect([
        await store.advanceTurn("h", 1),
        await store.advanceTurn("h", 2),
        await store.advanceTurn("h", 3),
      ]).toEqual([1, 2, 3]);
      expect(await store.loadConversation("h")).toMatchObject({ turn: 3, lastSeen: 3 });
    });

    test("a commit at turn 0 resets the clock the hook advances, dropping the ledger", async () => {
      const { store } = await fresh();
      const turn = await store.advanceTurn("h", 1);
      await store.commitTurn("h", { turn, now: 1, injections: [{ id: "k/x", version: "v", turn }] });
      await store.commitTurn("h", { turn: 0, now: 2 });
      expect(await store.loadConversation("h")).toMatchObject({ turn: 0, injections: [] });
      expect(await store.advanceTurn("h", 3)).toBe(1);
    });

    test("the latest conversation that opened a given way is found; the first opening given is kept", async () => {
      const { store } = await fresh();
      await store.commitTurn("older", { turn: 1, now: 10, opening: "o1" });
      await store.commitTurn("newer", { turn: 1, now: 20, opening: "o1" });
      await store.commitTurn("newer", { turn: 2, now: 30, opening: "o2" });
      expect(await store.findByOpening("o1")).toBe("newer");
      expect(await store.findByOpening("o2")).toBeNull();
    });

    test("conversations that opened the same way and were seen at the same time: the smallest id", async () => {
      const { store } = await fresh();
      for (const id of ["b", "a", "c"]) await store.commitTurn(id, { turn: 1, now: 7, opening: "o" });
      expect(await store.findByOpening("o")).toBe("a");
    });
  });

  turnRecordContract(name, fresh);
  recallContract(name, fresh);
  loreContract(name, fresh);

  describe(`${name} store: secret and hit log`, () => {
    test("the marker secret is 48 hex digits, stable across reopening, and differs between stores", async () => {
      const { store, again } = await fresh();
      const first = await store.markerSecret();
      expect(first).toMatch(/^[0-9a-f]{48}$/);
      expect(await store.markerSecret()).toBe(first);
      await store.close();
      expect(await (await again()).markerSecret()).toBe(first);
      const other = await fresh();
      expect(await other.store.markerSecret()).not.toBe(first);
    });

    test("hits are appended and read back newest first, as many as asked for", async () => {
      const { store, again } = await fresh();
      await store.appendHits([hit(1), hit(2)]);
      await store.appendHits([hit(3)]);
      await store.appendHits([]);
      expect((await store.recentHits(2)).map((e) => e.keys[0])).toEqual(["card3", "card2"]);
      expect(await (await again()).recentHits(10)).toEqual([hit(3), hit(2), hit(1)]);
      expect(await store.recentHits(0)).toEqual([]);
    });

    test("an empty hit log reads as empty", async () => {
      const { store } = await fresh();
      expect(await store.recentHits(5)).toEqual([]);
    });

    test("at most 60 units of a hit's message are kept, without splitting a character", async () => {
      const { store } = await fresh();
      await store.appendHits([hit(1, `${"字".repeat(58)}😀😀😀`)]);
      const [got] = await store.recentHits(1);
      expect(got!.message).toBe(`${"字".repeat(58)}😀`);
    });
  });

  describe(`${name} store: concurrency and handles`, () => {
    test("concurrent commits from two handles lose nothing", async () => {
      const { store, again } = await fresh();
      const other = await again();
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? store : other).commitTurn(i % 4 < 2 ? "shared" : `own${i}`, {
            turn: 1,
            now: i,
            injections: [{ id: `k/${String(i).padStart(2, "0")}`, version: "v", turn: 1 }],
            replay: record(i, 1, [`k/${i}`]),
          }),
        ),
      );
      const shared = await store.loadConversation("shared");
      expect(shared.injections).toHaveLength(20);
      expect(shared.replays).toHaveLength(20);
      for (let i = 2; i < 40; i += 4) expect((await other.loadConversation(`own${i}`)).turn).toBe(1);
    });

    test("concurrent advances of one clock hand out every turn once", async () => {
      const { store, again } = await fresh();
      const other = await again();
      const turns = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? store : other).advanceTurn("h", i)),
      );
      expect(turns.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });

    test("a closed handle refuses work; closing twice is harmless and other handles go on", async () => {
      const { store, again } = await fresh();
      const other = await again();
      await store.close();
      await store.close();
      await expect(store.loadConversation("c")).rejects.toThrow();
      await expect(store.appendHits([hit(1)])).rejects.toThrow();
      await other.commitTurn("c", { turn: 1, now: 1 });
      expect((await other.loadConversation("c")).turn).toBe(1);
    });
  });
}
