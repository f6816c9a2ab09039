// `GET /api/stats`: the report of `lorecards stats --json`, over the vault's own state or the store
// the caller passes, for the last `days` UTC days.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createApi } from "../../src/api/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { openStore, type Store } from "../../src/state/index.ts";
import { noon, turnRecord, usage } from "../state/contract.ts";
import { apiRequest } from "../support/api-request.ts";
import { vaultStore } from "../support/state.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let root: string;
let engine: Engine;
const stores: Store[] = [];

beforeEach(async () => {
  root = makeVault();
  engine = await openEngine(root, { segmenter: false });
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  engine.close();
  removeDir(root);
});

function api(store?: Store) {
  return createApi({ engine, hosts: ["127.0.0.1"], port: 8766, now: () => new Date(noon(3, 30)), store });
}

async function get(handler: ReturnType<typeof api>, query = "") {
  const res = await handler(apiRequest("GET", `/api/stats${query}`));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function seeded(store: Store): Promise<Store> {
  stores.push(store);
  await store.recordTurn(turnRecord("old", 1, noon(1)));
  await store.recordUsage("old", 1, usage(1000), noon(1));
  await store.recordTurn(turnRecord("new", 1, noon(3)));
  await store.recordUsage("new", 1, usage(200, 800), noon(3));
  return store;
}

describe("GET /api/stats", () => {
  test("the last N days of the vault's own state: per day, totals, conversations", async () => {
    await seeded(await vaultStore(root));
    const { status, body } = await get(api(), "?days=3");
    expect(status).toBe(200);
    expect(body).toMatchObject({
      since: "2025-03-01",
      days: [
        { day: "2025-03-01", turns: 1, uncached: 1000, cost: 1000 },
        { day: "2025-03-03", turns: 1, uncached: 200, cache_read: 800, cost: 600 },
      ],
      totals: { turns: 2, measured: 2, uncached: 1200, cache_read: 800, cost: 1600 },
      conversations: [
        { id: "old", surface: "gateway", cost: 1000 },
        { id: "new", surface: "gateway", cost: 600 },
      ],
      blame: [],
    });
  });

  test("by default the last 7 days, from the store the caller passes", async () => {
    const store = await seeded(await openStore("memory:"));
    const { body } = await get(api(store));
    expect(body).toMatchObject({ since: "2025-02-25", totals: { turns: 2 } });
    expect((await get(api(store), "?days=1")).body).toMatchObject({
      since: "2025-03-03",
      totals: { turns: 1 },
    });
  });

  test("nothing recorded yet is a report of zeros", async () => {
    const { status, body } = await get(api());
    expect(status).toBe(200);
    expect(body).toMatchObject({
      days: [],
      conversations: [],
      blame: [],
      totals: { turns: 0, saving_ratio: null },
    });
  });

  test.each(["0", "-1", "2.5", "lots", "3661"])("days=%s is refused with 400", async (days) => {
    const { status, body } = await get(api(), `?days=${days}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: "invalid_input" });
    expect(String(body.detail)).toContain("days must be");
  });
});
