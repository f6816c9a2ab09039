// The sqlite backend's hit log is the file users know, hits.jsonl: its format and its tolerance.
import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import { hitsPath, openStore, type Store, stateUrl } from "../../src/state/index.ts";
import { removeDir, tempDir } from "../support/vault.ts";
import { hit as entry } from "./contract.ts";

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

async function vault(): Promise<{ root: string; store: Store }> {
  const root = tempDir();
  dirs.push(root);
  const store = await openStore(stateUrl(root));
  stores.push(store);
  return { root, store };
}

describe("hit log file", () => {
  test("a torn or hand-edited line is skipped", async () => {
    const { root, store } = await vault();
    await store.appendHits([entry(1)]);
    fs.appendFileSync(hitsPath(root), "{not json\n");
    await store.appendHits([entry(2)]);
    fs.appendFileSync(hitsPath(root), '{"time":"2025');
    expect((await store.recentHits(5)).map((e) => e.keys[0])).toEqual(["card2", "card1"]);
  });

  test("the tail is found in a log larger than one read chunk", async () => {
    const { store } = await vault();
    await store.appendHits(Array.from({ length: 2000 }, (_, i) => entry(i % 60, "x".repeat(150))));
    await store.appendHits([entry(7, "last")]);
    const got = await store.recentHits(1500);
    expect(got).toHaveLength(1500);
    expect(got[0]!.message).toBe("last");
  });

  test("one line per entry, in <vault>/.lorecards/hits.jsonl", async () => {
    const { root, store } = await vault();
    await store.appendHits([entry(1), entry(2)]);
    const lines = fs.readFileSync(hitsPath(root), "utf8").trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toEqual(entry(1));
  });
});
