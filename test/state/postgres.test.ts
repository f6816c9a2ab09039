/**
 * The Postgres store (src/state/postgres.ts) against a real server: a throwaway cluster of the Debian
 * package (test/support/postgres.ts). It runs the one contract suite every backend runs, each place in
 * a space of its own, then what only a server store has: a shared schema made once, spaces that share
 * nothing, and bounded waits when the server is paused, restarted or cut off.
 */

import { afterAll, describe, expect, test } from "bun:test";
import { PG_SCHEMA_VERSION } from "../../src/state/_pg-schema.ts";
import { openStore } from "../../src/state/index.ts";
import { startPostgres } from "../support/postgres.ts";
import { storeContract } from "./contract.ts";

const pg = await startPostgres("postgres store tests");
afterAll(async () => pg?.stop());

if (pg) {
  let spaces = 0;
  storeContract("postgres", () => {
    const space = `contract${++spaces}`;
    return { open: (limits) => openStore(pg.store(space), { limits }), dispose: () => {} };
  });
}

describe.skipIf(!pg)("postgres store: the URL", () => {
  test.each([
    ["postgres://u@127.0.0.1:1/db?space=a b", /space=a b: use 1 to 100 letters/],
    ["postgres://u@127.0.0.1:1/db?timeout=0", /timeout=0: use seconds/],
    ["postgres://u@127.0.0.1:1/db?timeout=x", /timeout=x: use seconds/],
    ["postgres://u@127.0.0.1:1/db?conversations=1.5", /conversations=1.5: use a whole number/],
  ])("%s is refused, naming what is wrong", async (url, message) => {
    await expect(openStore(url)).rejects.toThrow(message);
  });
});

describe.skipIf(!pg)("postgres store: sharing one database", () => {
  test("several handles opening a new database together make its schema once", async () => {
    await pg!.psql("DROP SCHEMA IF EXISTS lorecards CASCADE");
    const stores = await Promise.all(Array.from({ length: 6 }, (_, i) => openStore(pg!.store(`schema${i}`))));
    await Promise.all(stores.map((s, i) => s.commitTurn(`c${i}`, { turn: 1, now: 1 })));
    for (const [i, s] of stores.entries()) expect((await s.loadConversation(`c${i}`)).turn).toBe(1);
    await Promise.all(stores.map((s) => s.close()));
    expect(await pg!.psql("SELECT value FROM lorecards.meta WHERE space = '' AND key = 'schema'")).toBe(
      `${PG_SCHEMA_VERSION}\n`,
    );
  });

  test("vaults in other spaces of one database share nothing: not a conversation, not the secret", async () => {
    const a = await openStore(pg!.store("vault-a"));
    const b = await openStore(pg!.store("vault-b"));
    await a.commitTurn("same-id", { turn: 3, now: 1, opening: "o" });
    await a.appendHits([
      { time: "2025-01-01T00:00:00.000Z", source: "gateway", keys: ["k"], words: [], message: "m" },
    ]);
    expect((await b.loadConversation("same-id")).turn).toBe(0);
    expect(await b.findByOpening("o")).toBeNull();
    expect(await b.recentHits(5)).toEqual([]);
    expect(await a.markerSecret()).not.toBe(await b.markerSecret());
    await a.close();
    await b.close();
  });

  test("a schema of version 1 is brought up to date in place: its conversations stay, and can be named", async () => {
    const store = await openStore(pg!.store("old-schema"));
    await store.recordTurn({
      conversation: "c1",
      turn: 1,
      at: 1,
      surface: "gateway",
      blocks: [],
      replayedChars: 0,
      leftOut: [],
      promptChars: 0,
      counterfactual: { promptChars: 0, cachedChars: 0 },
      sharedChars: 0,
    });
    await store.close();
    await pg!.psql(
      "ALTER TABLE lorecards.conversations DROP COLUMN name; UPDATE lorecards.meta SET value = '1' WHERE space = '' AND key = 'schema'",
    );
    const again = await openStore(pg!.store("old-schema"));
    expect(await again.nameConversation("c1", "kept")).toBe(true);
    expect((await again.conversations(5)).map((c) => [c.id, c.name])).toEqual([["c1", "kept"]]);
    await again.close();
  });

  test("a schema made by a newer lorecards is refused, not written to", async () => {
    await pg!.psql("UPDATE lorecards.meta SET value = '99' WHERE space = '' AND key = 'schema'");
    try {
      const store = await openStore(pg!.store("newer"));
      await expect(store.loadConversation("c")).rejects.toThrow(/version 99\) was made by a newer lorecards/);
      await store.close();
    } finally {
      await pg!.psql(
        `UPDATE lorecards.meta SET value = '${PG_SCHEMA_VERSION}' WHERE space = '' AND key = 'schema'`,
      );
    }
  });
});

describe.skipIf(!pg)("postgres store: faults", () => {
  test("a paused server costs an operation its timeout, then the next fail at once until it answers again", async () => {
    const store = await openStore(pg!.store("paused", "timeout=1"));
    await store.commitTurn("c", { turn: 1, now: 1 });
    const paused = await pg!.pause();
    try {
      await expect(store.loadConversation("c")).rejects.toThrow(/no answer within 1 s/);
      // Unreachable now: one operation at a time waits to see whether it answers; the others are refused at once.
      const errors = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          store.commitTurn(`c${i}`, { turn: 2, now: 2 }).then(
            () => "committed",
            (e: Error) => e.message,
          ),
        ),
      );
      expect(
        errors.filter((m) => /no answer within 1 s; not waiting again until it answers/.test(m)),
      ).toHaveLength(4);
      expect(errors.filter((m) => /no answer within 1 s$/.test(m))).toHaveLength(1);
    } finally {
      await pg!.resume(paused);
    }
    // The first operation after it answers again probes, and succeeds; what was committed is there.
    await store.commitTurn("c", { turn: 3, now: 3 });
    expect((await store.loadConversation("c")).turn).toBe(3);
    await store.close();
  });

  test("a restarted server loses nothing committed, and the same handle goes on without reopening", async () => {
    const store = await openStore(pg!.store("restarted", "timeout=2"));
    await store.commitTurn("c", {
      turn: 1,
      now: 1,
      replay: { anchor: 0, hash: "h", place: "prefix", text: "t", turn: 1, cards: [] },
    });
    await store.recordUsage("c", 1, { uncached: 5, cacheRead: 0, cacheWrite: 0, output: 1 }, 1000);
    await pg!.restart();
    const c = await store.loadConversation("c");
    expect(c.turn).toBe(1);
    expect(c.replays.map((r) => r.text)).toEqual(["t"]);
    expect((await store.turns("c", 5))[0]!.usage?.uncached).toBe(5);
    await store.close();
  });

  test("connections cut by the server cost no operation: the next one runs on a fresh connection", async () => {
    const store = await openStore(pg!.store("cut", "timeout=2"));
    await Promise.all(Array.from({ length: 6 }, (_, i) => store.commitTurn(`c${i}`, { turn: 1, now: 1 })));
    expect(await pg!.cut("lorecards")).toBeGreaterThan(0);
    await store.commitTurn("c0", { turn: 2, now: 2 });
    expect((await store.loadConversation("c0")).turn).toBe(2);
    expect(await pg!.cut("lorecards")).toBeGreaterThan(0);
    expect((await store.loadConversation("c1")).turn).toBe(1);
    await store.close();
  });
});
