/**
 * A watching sqlite store (a gateway that watches its vault) does not stat state.db per operation: a
 * watcher of the file says when it may have changed. A file deleted or replaced under it is still
 * followed, at the watcher's event; one swapped where no event reaches (the folder above it renamed)
 * at the next look a second later. The clock is the test's, so only the watcher can make a change
 * seen until the test moves it on.
 */

import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { openStore, type Store, statePath, stateUrl } from "../../src/state/index.ts";
import { openSqliteStore } from "../../src/state/sqlite.ts";
import { LIMITS } from "../../src/state/types.ts";
import { TRUST_MS } from "../../src/watched-path.ts";
import { removeDir, tempDir } from "../support/vault.ts";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

function watching(root: string, clock: { t: number }, warnings: string[]): Store {
  const store = openSqliteStore(statePath(root), {
    limits: LIMITS,
    warn: (l) => warnings.push(l),
    watch: true,
    now: () => clock.t,
  });
  cleanup.push(() => store.close());
  return store;
}

async function other(root: string): Promise<Store> {
  const store = await openStore(stateUrl(root), { warn: () => {} });
  cleanup.push(() => store.close());
  return store;
}

/** Reads until the store has said it followed the path (the watcher's event handled), 2,000 turns at most. */
async function followed(store: Store, warnings: string[]): Promise<boolean> {
  for (let i = 0; i < 2000 && warnings.length === 0; i++) {
    await Bun.sleep(5);
    await store.loadConversation("any");
  }
  return warnings.length > 0;
}

describe("a watching sqlite store", () => {
  test.each([
    ["deleted", (file: string) => fs.rmSync(file)],
    [
      "replaced by a file renamed over it",
      (file: string) => {
        fs.copyFileSync(file, `${file}.copy`);
        fs.renameSync(`${file}.copy`, file);
      },
    ],
  ])("follows a state file %s at its watcher's event, with one line", async (_name, change) => {
    const root = tempDir();
    cleanup.push(() => removeDir(root));
    const warnings: string[] = [];
    const store = watching(root, { t: 0 }, warnings);
    await store.commitTurn("before", { turn: 1, now: 1 });
    change(statePath(root));
    expect(await followed(store, warnings)).toBe(true);
    await store.commitTurn("after", { turn: 2, now: 2 });
    expect((await (await other(root)).loadConversation("after")).turn).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("deleted or replaced");
  });

  test("asks no stat between events: a file swapped with the folder above it is seen a second later", async () => {
    const root = tempDir();
    cleanup.push(() => removeDir(root));
    const dir = path.dirname(statePath(root));
    const warnings: string[] = [];
    const clock = { t: 0 };
    const store = watching(root, clock, warnings);
    await store.commitTurn("before", { turn: 1, now: 1 });
    // The state folder renamed and another put in its place: the file's own watcher hears nothing.
    fs.renameSync(dir, `${dir}-away`);
    await (await other(root)).commitTurn("new", { turn: 4, now: 4 });
    await Bun.sleep(50);
    expect((await store.loadConversation("before")).turn).toBe(1);
    expect(warnings).toEqual([]);
    clock.t += TRUST_MS;
    expect((await store.loadConversation("new")).turn).toBe(4);
    expect((await store.loadConversation("before")).turn).toBe(0);
    expect(warnings).toHaveLength(1);
  });
});
