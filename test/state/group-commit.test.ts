/**
 * Group commit in the sqlite store (src/state/_write-queue.ts): writes made in one turn of the event
 * loop share one transaction, each resolves only once that transaction is committed, a handle reads
 * its own queued writes, the writes of one conversation keep their order, and a failure costs the
 * writes it concerns, never the store.
 */

import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import {
  type CardRef,
  type ConversationChange,
  hitsPath,
  type Limits,
  openStore,
  type Store,
  statePath,
  stateUrl,
} from "../../src/state/index.ts";
import { removeDir, tempDir } from "../support/vault.ts";
import { hit, noon, record, turnRecord, usage } from "./contract.ts";

const dirs: string[] = [];
const stores: Store[] = [];

async function fresh(
  limits: Partial<Limits> = {},
): Promise<{ root: string; store: Store; warnings: string[] }> {
  const root = tempDir();
  dirs.push(root);
  const warnings: string[] = [];
  const store = await openStore(stateUrl(root), { warn: (l) => warnings.push(l), limits });
  stores.push(store);
  return { root, store, warnings };
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

/** What another connection (another process) sees committed in the file right now. */
function committed(root: string): { id: string; turn: number }[] {
  const db = new Database(statePath(root), { readonly: true });
  try {
    return db.query<{ id: string; turn: number }, []>("SELECT id, turn FROM conversations ORDER BY id").all();
  } finally {
    db.close();
  }
}

const change = (turn: number, cards: string[] = []): ConversationChange => ({
  turn,
  now: turn,
  injections: cards.map((id) => ({ id, version: "1:1", turn })),
});

describe("sqlite store: group commit", () => {
  test("writes made together are committed together: when the first resolves, another connection sees them all", async () => {
    const { root, store } = await fresh();
    const writes = Array.from({ length: 10 }, (_, i) => store.commitTurn(`c${i}`, change(i + 1)));
    await writes[0];
    expect(committed(root)).toHaveLength(10);
    await Promise.all(writes);
  });

  test("a write resolves only once it is committed: another connection reads it at once", async () => {
    const { root, store } = await fresh();
    for (let i = 1; i <= 3; i++) {
      await store.commitTurn("c", change(i, [`people/p${i}`]));
      expect(committed(root)).toEqual([{ id: "c", turn: i }]);
    }
    const other = await openStore(stateUrl(root), { warn: () => {} });
    stores.push(other);
    expect((await other.loadConversation("c")).injections.map((i) => i.id)).toEqual([
      "people/p1",
      "people/p2",
      "people/p3",
    ]);
  });

  test("the writes of one conversation made together apply in the order they were made", async () => {
    const { store } = await fresh();
    const steps: ((s: Store) => Promise<unknown>)[] = [
      (s) => s.commitTurn("c", { ...change(1, ["people/a"]), opening: "o1" }),
      (s) => s.commitTurn("c", { ...change(3, ["people/b"]), replay: record(5, 3, ["people/b"]) }),
      (s) => s.advanceTurn("c", 4),
      // A lower turn: a new clock, which drops what turns 3 and 4 wrote.
      (s) => s.commitTurn("c", { ...change(2, ["people/c"]), timed: { "people/c": { last: 2 } } }),
      (s) => s.commitTurn("d", change(1, ["people/d"])),
      (s) => s.commitTurn("c", { ...change(3, ["people/a"]), replay: record(6, 3, ["people/a"]) }),
    ];
    const results = await Promise.all(steps.map((step) => step(store)));

    const { store: oneByOne } = await fresh();
    const expected: unknown[] = [];
    for (const step of steps) expected.push(await step(oneByOne));
    expect(results).toEqual(expected);
    for (const id of ["c", "d"]) {
      expect(await store.loadConversation(id)).toEqual(await oneByOne.loadConversation(id));
    }
    expect((await store.loadConversation("c")).injections.map((i) => [i.id, i.turn])).toEqual([
      ["people/c", 2],
      ["people/a", 3],
    ]);
  });

  test("turn records, usage, days, the caps and an eviction made together come out as made one by one", async () => {
    // One transaction remembers the rows it read and holds back turn records and days' totals until
    // its commit (_sqlite-seen.ts): the same writes made one at a time must leave the same state.
    const limits = { turnsPerConversation: 2, conversations: 2 };
    const steps: ((s: Store) => Promise<unknown>)[] = [
      (s) => s.commitTurn("c", { ...change(1, ["people/a"]), replay: record(1, 1, ["people/a"]) }),
      (s) => s.commitTurn("c", { ...change(1), replay: record(2, 1, ["people/a"]) }),
      (s) => s.recordTurn(turnRecord("c", 1, noon(3))),
      (s) => s.recordUsage("c", 1, usage(900, 100), noon(3, 1)),
      (s) => s.recordUsage("c", 1, usage(50), noon(3, 2)),
      // The same turn sent again: its record is replaced, keeping what was billed.
      (s) => s.recordTurn(turnRecord("c", 1, noon(3, 3), { replayedChars: 7 })),
      (s) => s.commitTurn("c", { ...change(2, ["people/b"]), replay: record(3, 2, ["people/b"]) }),
      (s) => s.recordTurn(turnRecord("c", 2, noon(3, 4))),
      // A third turn: the cap keeps the two highest.
      (s) => s.recordTurn(turnRecord("c", 3, noon(3, 5))),
      (s) => s.recordUsage("c", 3, usage(10), noon(4)),
      // Usage alone, on another day, for a turn with no record yet.
      (s) => s.recordUsage("d", 1, usage(5), noon(4, 1)),
      (s) => s.nameConversation("c", "the market"),
      // A third conversation: the least recently seen (c) is evicted, with what was written of it above.
      (s) => s.commitTurn("e", { ...change(1, ["people/e"]), now: noon(5) }),
      (s) => s.recordTurn(turnRecord("e", 1, noon(5))),
    ];
    const { store } = await fresh(limits);
    const together = await Promise.all(steps.map((step) => step(store)));
    const { store: oneByOne } = await fresh(limits);
    const apart: unknown[] = [];
    for (const step of steps) apart.push(await step(oneByOne));
    expect(together).toEqual(apart);
    const state = async (s: Store) => ({
      conversations: await s.conversations(10),
      loaded: await Promise.all(["c", "d", "e"].map((id) => s.loadConversation(id))),
      turns: await Promise.all(["c", "d", "e"].map((id) => s.turns(id, 10))),
      since: await s.turnsSince(0),
      days: await s.days("2025-01-01"),
    });
    const expected = await state(oneByOne);
    expect(await state(store)).toEqual(expected);
    expect(expected.conversations.map((c) => c.id)).toEqual(["e", "d"]);
    expect(expected.days.map((d) => [d.day, d.turns])).toEqual([
      ["2025-03-03", 3],
      ["2025-03-04", 1],
      ["2025-03-05", 1],
    ]);
  });

  test("a handle reads its own queued writes: a load or a search by opening commits them first", async () => {
    const { root, store } = await fresh();
    const write = store.commitTurn("c", { ...change(2, ["people/a"]), opening: "o" });
    const other = store.commitTurn("d", change(1));
    expect((await store.loadConversation("c")).turn).toBe(2);
    expect(committed(root).map((r) => r.id)).toEqual(["c", "d"]);
    await Promise.all([write, other]);

    const later = store.commitTurn("e", { ...change(1), opening: "later" });
    expect(await store.findByOpening("later")).toBe("e");
    await later;
  });

  test("a write that throws is rejected alone: the others made with it are committed", async () => {
    const { root, store } = await fresh();
    const looped: CardRef[] = [{ id: "people/a", version: "1:1" }];
    (looped[0] as unknown as { self: unknown }).self = looped; // the stored JSON of its cards cannot be made
    const bad = { ...record(1, 1, []), cards: looped };
    const writes = [
      store.commitTurn("a", change(1)),
      store.commitTurn("b", { ...change(1), replay: bad }),
      store.commitTurn("c", change(1)),
    ];
    const outcomes = await Promise.allSettled(writes);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(committed(root).map((r) => r.id)).toEqual(["a", "c"]);

    // A turn record is written at the end of its transaction, yet one that cannot be stored fails alone too.
    const loop: unknown[] = [];
    loop.push(loop);
    const turns = [
      store.recordTurn(turnRecord("a", 2, noon(3))),
      store.recordTurn({ ...turnRecord("b", 1, noon(3)), leftOut: loop as never }),
      store.recordTurn(turnRecord("c", 2, noon(3))),
    ];
    const recorded = await Promise.allSettled(turns);
    expect(recorded.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((await store.turns("a", 5)).map((t) => t.turn)).toEqual([2]);
    expect(await store.turns("b", 5)).toEqual([]);
  });

  test("a transaction that fails rejects every write in it, and the next one works", async () => {
    const { root, store, warnings } = await fresh();
    await store.commitTurn("before", change(1));
    const writes = [store.commitTurn("a", change(1)), store.commitTurn("b", change(1))];
    // Before the queue runs, the state file becomes something no database can be opened on.
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(statePath(root) + suffix, { force: true });
    fs.mkdirSync(statePath(root));
    const outcomes = await Promise.allSettled(writes);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toContain("state.db");

    fs.rmdirSync(statePath(root));
    await store.commitTurn("after", change(1));
    expect(committed(root)).toEqual([{ id: "after", turn: 1 }]);
    expect(warnings.some((l) => l.includes("deleted or replaced"))).toBe(true);
  });

  test("hit log lines appended together go to the file in one append, in order; a read sees those still queued", async () => {
    const { root, store } = await fresh();
    const appends = [1, 2, 3].map((i) => store.appendHits([hit(i)]));
    expect((await store.recentHits(5)).map((e) => e.keys)).toEqual([["card3"], ["card2"], ["card1"]]);
    await Promise.all(appends);
    const lines = fs.readFileSync(hitsPath(root), "utf8").trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l).keys[0])).toEqual(["card1", "card2", "card3"]);
  });

  test("closing a handle commits what it queued first", async () => {
    const { root, store } = await fresh();
    const write = store.commitTurn("c", change(1));
    await store.close();
    await write;
    expect(committed(root)).toEqual([{ id: "c", turn: 1 }]);
    await expect(store.commitTurn("c", change(2))).rejects.toThrow(/closed/);
  });
});
