/**
 * The index-recall part of the Store contract (src/state/types.ts `recordRecall` … `cardUsage`), run
 * by every backend through `storeContract`: the first record of a query wins, adoptions count once
 * and only for listed cards, the age and the cap drop the oldest recalls with their adoptions, and
 * per-card usage adds up over a window.
 */

import { describe, expect, test } from "bun:test";
import type { Limits, RecallRecord, Store } from "../../src/state/index.ts";
import { noon } from "./contract.ts";

type Fresh = (limits?: Partial<Limits>) => Promise<{ store: Store; again: () => Promise<Store> }>;

const DAY = 86_400_000;

export function recall(query: string, at: number, cards: string[], session = "s1"): RecallRecord {
  return { session, query, at, surface: "hook", cards };
}

export function recallContract(name: string, fresh: Fresh): void {
  describe(`${name} store: index recalls and adoptions`, () => {
    test("a recall is kept with its cards in order, and read back by its ids from another handle", async () => {
      const { store, again } = await fresh();
      await store.recordRecall(recall("q1", noon(1), ["people/Alice", "places/Lyon"]));
      expect(await (await again()).findRecall("s1", "q1")).toEqual({
        ...recall("q1", noon(1), ["people/Alice", "places/Lyon"]),
        opened: {},
      });
      expect(await store.findRecall("s2", "q1")).toBeNull();
      expect(await store.findRecall("s1", "q2")).toBeNull();
    });

    test("the first record of a query wins; a card listed twice is kept once", async () => {
      const { store } = await fresh();
      await store.recordRecall(recall("q1", noon(1), ["a/x", "a/y", "a/x"]));
      await store.recordRecall(recall("q1", noon(2), ["a/z"]));
      expect(await store.findRecall("s1", "q1")).toMatchObject({ at: noon(1), cards: ["a/x", "a/y"] });
    });

    test("a recall keeps the first cards of its list, up to the cap", async () => {
      const { store } = await fresh({ cardsPerRecall: 2 });
      await store.recordRecall(recall("q1", noon(1), ["a/c", "a/b", "a/a"]));
      expect((await store.findRecall("s1", "q1"))?.cards).toEqual(["a/c", "a/b"]);
    });

    test.each([
      ["a listed card, the first time", "a/x", "recorded"],
      ["a card the recall did not list", "a/z", "not_listed"],
    ] as const)("an adoption of %s is %s", async (_what, card, outcome) => {
      const { store } = await fresh();
      await store.recordRecall(recall("q1", noon(1), ["a/x", "a/y"]));
      expect(await store.recordAdoption({ session: "s1", query: "q1", card, at: noon(1, 5) })).toBe(outcome);
    });

    test("an adoption naming no kept recall is unknown_query, and nothing is stored", async () => {
      const { store } = await fresh();
      await store.recordRecall(recall("q1", noon(1), ["a/x"]));
      const at = noon(1, 5);
      expect(await store.recordAdoption({ session: "s2", query: "q1", card: "a/x", at })).toBe(
        "unknown_query",
      );
      expect(await store.recordAdoption({ session: "s1", query: "q9", card: "a/x", at })).toBe(
        "unknown_query",
      );
      expect((await store.findRecall("s1", "q1"))?.opened).toEqual({});
    });

    test("opening a card again from the same recall counts once, at its first time", async () => {
      const { store, again } = await fresh();
      await store.recordRecall(recall("q1", noon(1), ["a/x"]));
      const adopt = (minute: number) =>
        store.recordAdoption({ session: "s1", query: "q1", card: "a/x", at: noon(1, minute) });
      expect([await adopt(5), await adopt(9)]).toEqual(["recorded", "repeated"]);
      expect((await (await again()).findRecall("s1", "q1"))?.opened).toEqual({ "a/x": noon(1, 5) });
    });

    test("a recall older than the kept days goes when a newer one is recorded, with its adoptions", async () => {
      const { store } = await fresh({ recallDays: 10 });
      await store.recordRecall(recall("old", noon(1), ["a/x"]));
      await store.recordAdoption({ session: "s1", query: "old", card: "a/x", at: noon(1, 1) });
      await store.recordRecall(recall("edge", noon(2), ["a/x"]));
      await store.recordRecall(recall("new", noon(1) + 10 * DAY + 1, ["a/y"]));
      expect(await store.findRecall("s1", "old")).toBeNull();
      expect(await store.findRecall("s1", "edge")).not.toBeNull();
      expect((await store.cardUsage(0)).cards).toEqual([
        { card: "a/x", recalled: 1, opened: 0, lastRecalled: noon(2), lastOpened: null },
        { card: "a/y", recalled: 1, opened: 0, lastRecalled: noon(1) + 10 * DAY + 1, lastOpened: null },
      ]);
    });

    test("beyond the recall cap the oldest go first (then the smallest query id)", async () => {
      const { store } = await fresh({ recalls: 2 });
      await store.recordRecall(recall("b", noon(1), ["a/x"]));
      await store.recordRecall(recall("a", noon(1), ["a/x"]));
      await store.recordRecall(recall("c", noon(2), ["a/x"]));
      expect(await store.findRecall("s1", "a")).toBeNull();
      expect((await store.findRecall("s1", "b"))?.query).toBe("b");
      expect((await store.findRecall("s1", "c"))?.query).toBe("c");
      expect((await store.cardUsage(0)).recalls).toBe(2);
    });

    test("recalls outlive the conversation cap: they are kept apart from conversations", async () => {
      const { store } = await fresh({ conversations: 1 });
      await store.recordRecall(recall("q1", noon(1), ["a/x"], "hook:one"));
      await store.commitTurn("hook:one", { turn: 1, now: noon(1) });
      await store.commitTurn("hook:two", { turn: 1, now: noon(2) });
      expect((await store.loadConversation("hook:one")).turn).toBe(0);
      expect(await store.findRecall("hook:one", "q1")).not.toBeNull();
    });

    test("card usage counts a window's recalls per card: listed, opened, last listed, last opened", async () => {
      const { store, again } = await fresh();
      await store.recordRecall(recall("q0", noon(1), ["a/x", "a/old"]));
      await store.recordAdoption({ session: "s1", query: "q0", card: "a/old", at: noon(1, 2) });
      await store.recordRecall(recall("q1", noon(3), ["a/x", "a/y"]));
      await store.recordRecall(recall("q2", noon(4), ["a/y", "a/x"], "s2"));
      await store.recordAdoption({ session: "s1", query: "q1", card: "a/x", at: noon(3, 1) });
      await store.recordAdoption({ session: "s2", query: "q2", card: "a/x", at: noon(4, 7) });
      await store.recordAdoption({ session: "s2", query: "q2", card: "a/x", at: noon(4, 9) });
      expect(await (await again()).cardUsage(noon(2))).toEqual({
        recalls: 2,
        cards: [
          { card: "a/x", recalled: 2, opened: 2, lastRecalled: noon(4), lastOpened: noon(4, 7) },
          { card: "a/y", recalled: 2, opened: 0, lastRecalled: noon(4), lastOpened: null },
        ],
      });
      expect(await store.cardUsage(noon(5))).toEqual({ recalls: 0, cards: [] });
    });

    test("what a read returns is a copy: changing it changes nothing stored", async () => {
      const { store } = await fresh();
      await store.recordRecall(recall("q1", noon(1), ["a/x"]));
      const first = await store.findRecall("s1", "q1");
      first!.cards.push("a/y");
      first!.opened["a/x"] = 1;
      expect(await store.findRecall("s1", "q1")).toEqual({ ...recall("q1", noon(1), ["a/x"]), opened: {} });
    });

    test("a very long session or query id is kept cut, and an adoption naming it in full finds it", async () => {
      const { store } = await fresh();
      const long = "s".repeat(300);
      await store.recordRecall(recall("q".repeat(300), noon(1), ["a/x"], long));
      expect(
        await store.recordAdoption({ session: long, query: "q".repeat(300), card: "a/x", at: noon(1, 1) }),
      ).toBe("recorded");
      expect((await store.findRecall(long, "q".repeat(300)))?.session).toHaveLength(256);
    });
  });
}
