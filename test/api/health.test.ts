// `GET /api/health/cards`: the report of `lorecards stats --cards --json`, over the vault's own state or
// the store the caller passes, for the 30 days before the API's clock.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createApi } from "../../src/api/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { openStore, type Store } from "../../src/state/index.ts";
import { noon } from "../state/contract.ts";
import { apiRequest } from "../support/api-request.ts";
import { vaultStore } from "../support/state.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const DAY = 86_400_000;
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
  return createApi({ engine, hosts: ["127.0.0.1"], port: 8766, now: () => new Date(noon(30)), store });
}

async function get(handler: ReturnType<typeof api>) {
  const res = await handler(apiRequest("GET", `/api/health/cards`));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function seeded(store: Store): Promise<Store> {
  stores.push(store);
  for (let i = 0; i < 3; i++) {
    const query = `q${i}`;
    await store.recordRecall({
      session: "s",
      query,
      at: noon(29),
      surface: "gateway",
      cards: ["people/Alice"],
    });
  }
  await store.recordRecall({
    session: "s",
    query: "q9",
    at: noon(30) - 31 * DAY,
    surface: "hook",
    cards: ["people/小林"],
  });
  return store;
}

describe("GET /api/health/cards", () => {
  test("the vault's own state: every card that comes in on its words, classed over the last 30 days", async () => {
    await seeded(await vaultStore(root));
    const { status, body } = await get(api());
    expect(status).toBe(200);
    expect(body).toMatchObject({
      since: new Date(noon(30) - 30 * DAY).toISOString(),
      window_days: 30,
      recalls: 3,
      counts: { dead: 4, noisy: 0, underperforming: 1, healthy: 0 },
    });
    expect((body.cards as { card: string; class: string }[]).map((c) => `${c.class} ${c.card}`)).toEqual([
      "dead event/the Friday deploy",
      "dead people/小林",
      "dead place/the corner cafe",
      "dead thing/the blue notebook",
      "underperforming people/Alice",
    ]);
  });

  test("the store the caller passes", async () => {
    const { body } = await get(api(await seeded(await openStore("memory:"))));
    expect(body.recalls).toBe(3);
  });
});
