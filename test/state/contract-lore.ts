/**
 * The lore-switch part of the Store contract (src/state/types.ts `setLore`, src/state/_lore-rules.ts),
 * run by every backend through `storeContract`: a session's switch reaches every conversation that
 * carries the session (its own id, or a surface's or client's name and a colon before it), the
 * conversation's own id wins over the bare session's, a second switch replaces the first and null
 * forgets it, and the cap drops the longest set.
 */

import { describe, expect, test } from "bun:test";
import type { Limits, Store } from "../../src/state/index.ts";
import { noon } from "./contract.ts";

type Fresh = (limits?: Partial<Limits>) => Promise<{ store: Store; again: () => Promise<Store> }>;

const lore = async (store: Store, id: string) => (await store.loadConversation(id)).lore;

export function loreContract(name: string, fresh: Fresh): void {
  describe(`${name} store: lore switches`, () => {
    test("a session's switch reaches each conversation that carries it, read from another handle", async () => {
      const { store, again } = await fresh();
      await store.setLore("5f1c-session", "declared", noon(1));
      const other = await again();
      expect(await lore(other, "5f1c-session")).toBe("declared");
      expect(await lore(other, "hook:5f1c-session")).toBe("declared");
      expect(await lore(other, "claude-code:5f1c-session")).toBe("declared");
      expect(await lore(other, "5f1c")).toBeUndefined();
      expect(await lore(other, "hook:other")).toBeUndefined();
    });

    test("a conversation that was never seen loads with the switch, and stays unseen", async () => {
      const { store } = await fresh();
      await store.setLore("s1", "none", noon(1));
      expect(await store.loadConversation("hook:s1")).toEqual({
        id: "hook:s1",
        turn: 0,
        lastSeen: 0,
        injections: [],
        replays: [],
        timed: {},
        lore: "none",
      });
      expect(await store.conversations(10)).toEqual([]);
    });

    test("a stored conversation keeps everything it held beside the switch", async () => {
      const { store } = await fresh();
      await store.commitTurn("hook:s1", {
        turn: 2,
        now: 5,
        injections: [{ id: "people/Alice", version: "v1", turn: 2 }],
      });
      await store.setLore("s1", "declared", noon(1));
      expect(await store.loadConversation("hook:s1")).toMatchObject({
        turn: 2,
        injections: [{ id: "people/Alice", version: "v1", turn: 2 }],
        lore: "declared",
      });
    });

    test("the switch of the conversation's own id wins over the bare session's", async () => {
      const { store } = await fresh();
      await store.setLore("s1", "declared", noon(1));
      await store.setLore("hook:s1", "auto", noon(2));
      expect(await lore(store, "hook:s1")).toBe("auto");
      expect(await lore(store, "claude-code:s1")).toBe("declared");
    });

    test("a second switch replaces the first, and null forgets it", async () => {
      const { store, again } = await fresh();
      await store.setLore("s1", "none", noon(1));
      await store.setLore("s1", "declared", noon(2));
      expect(await lore(await again(), "s1")).toBe("declared");
      await store.setLore("s1", null, noon(3));
      expect(await lore(await again(), "s1")).toBeUndefined();
      await store.setLore("never-set", null, noon(3));
      expect(await lore(store, "never-set")).toBeUndefined();
    });

    test("a handle reads the switch it has just set", async () => {
      const { store } = await fresh();
      const set = store.setLore("s1", "none", noon(1));
      expect(await lore(store, "s1")).toBe("none");
      await set;
    });

    test("the cap keeps the switches set last, the longest set going first (then by session)", async () => {
      const { store } = await fresh({ loreSwitches: 2 });
      await store.setLore("b", "none", noon(1));
      await store.setLore("a", "none", noon(1));
      await store.setLore("c", "declared", noon(2));
      expect(await lore(store, "a")).toBeUndefined();
      expect(await lore(store, "b")).toBe("none");
      await store.setLore("b", "auto", noon(3));
      await store.setLore("d", "none", noon(4));
      expect(await lore(store, "c")).toBeUndefined();
      expect([await lore(store, "b"), await lore(store, "d")]).toEqual(["auto", "none"]);
    });

    test("session ids longer than 256 characters are cut, and still meet their conversation", async () => {
      const { store } = await fresh();
      const long = "s".repeat(300);
      await store.setLore(long, "none", noon(1));
      expect(await lore(store, long)).toBe("none");
      expect(await lore(store, `hook:${long}`)).toBe("none");
    });
  });
}
