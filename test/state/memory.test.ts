import { describe, expect, test } from "bun:test";
import { openStore } from "../../src/state/index.ts";
import { memoryState, openMemoryStore } from "../../src/state/memory.ts";
import { LIMITS } from "../../src/state/types.ts";
import { hit, storeContract } from "./contract.ts";

storeContract("memory", () => {
  const state = memoryState();
  return {
    open: async (limits) => openMemoryStore({ limits: { ...LIMITS, ...limits }, state }),
    dispose: () => {},
  };
});

describe("memory: store", () => {
  test("each memory: store starts empty and shares nothing with another", async () => {
    const a = await openStore("memory:");
    const b = await openStore("memory:");
    await a.commitTurn("c", { turn: 2, now: 1 });
    await a.appendHits([hit(1)]);
    expect((await b.loadConversation("c")).turn).toBe(0);
    expect(await b.recentHits(5)).toEqual([]);
    expect(await a.markerSecret()).not.toBe(await b.markerSecret());
    await a.close();
    await b.close();
  });

  test("the hit log keeps its newest 10,000 entries", async () => {
    const store = await openStore("memory:");
    await store.appendHits(Array.from({ length: 10_005 }, (_, i) => hit(i % 60, `m${i}`)));
    const got = await store.recentHits(20_000);
    expect(got).toHaveLength(10_000);
    expect([got[0]!.message, got.at(-1)!.message]).toEqual(["m10004", "m5"]);
    await store.close();
  });
});

describe("openStore", () => {
  test("?conversations=N sets the conversation cap of a file or heap store; another parameter is refused", async () => {
    const store = await openStore("memory:?conversations=2");
    for (const [i, id] of ["a", "b", "c"].entries()) await store.commitTurn(id, { turn: 1, now: i });
    expect((await store.loadConversation("a")).turn).toBe(0);
    expect((await store.loadConversation("c")).turn).toBe(1);
    await store.close();
    await expect(openStore("memory:?conversations=0")).rejects.toThrow(/conversations=0: use a whole number/);
    await expect(openStore("memory:?size=3")).rejects.toThrow(/unknown parameter size/);
  });

  test.each(["", "memory", "memory:x", "sqlite:", "redis://localhost", "/tmp/state.db", "postgres:db"])(
    "refuses %j, naming the forms it takes",
    async (url) => {
      await expect(openStore(url)).rejects.toThrow(
        /sqlite:<path>, memory: or postgres:\/\/user@host:port\/database/,
      );
    },
  );
});
