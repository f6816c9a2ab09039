// One JSON convention for every answer of the API (src/wire.ts): keys in snake_case, times as ISO 8601
// strings. Every GET route is asked, on a vault with a card written through the API (so it has history
// and a step), a recorded conversation and a logged try; only what a person named keeps their keys: a
// card's own frontmatter (at the top of the card's form, and under `frontmatter` and `extra`).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApi } from "../../src/api/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { openStore, type Store } from "../../src/state/index.ts";
import { apiRequest } from "../support/api-request.ts";
import { turnRecord } from "../support/turn-record.ts";
import { CARDS, makeVault, removeDir } from "../support/vault.ts";

let root: string;
let engine: Engine;
let store: Store;
let handle: (req: Request) => Promise<Response>;

beforeAll(async () => {
  root = makeVault([
    ...CARDS,
    { dir: "people", key: "Bob", keywords: ["bob"], body: "## who\nA neighbour.\n", extra: "myField: 1\n" },
  ]);
  engine = await openEngine(root, { segmenter: false });
  store = await openStore("memory:");
  handle = createApi({ engine, store, hosts: ["127.0.0.1"], port: 8766, now: () => new Date() });
  await store.recordTurn(turnRecord("c1", 1, [], { leftOut: [{ id: "people/Bob", reason: "budget" }] }));
  const write = await handle(
    apiRequest("POST", "/api/cards", { kind: "people", title: "Zed", keywords: ["zed"] }),
  );
  expect(write.status).toBe(201);
  await handle(apiRequest("POST", "/api/try?log=1", { text: "Alice and Zed" }));
});
afterAll(async () => {
  await store.close();
  engine.close();
  removeDir(root);
});

/** Paths (`a.b[0].c`) of keys that are not snake_case, skipping what a person named. */
function offending(value: unknown, at = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => offending(v, `${at}[${i}]`));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const here = at === "" ? key : `${at}.${key}`;
    if (key === "frontmatter" || key === "extra") return [];
    // A map keyed by card (`people/Alice`) has names for keys, not fields.
    const bad = !key.includes("/") && /[A-Z]/.test(key) ? [here] : [];
    return [...bad, ...offending(v, here)];
  });
}

const ROUTES = [
  "/api/kinds",
  "/api/cards",
  "/api/cards?archived=1",
  "/api/cards/people/Alice/history",
  "/api/cards/people/Zed/history?version=1",
  "/api/cards/people/Alice/links",
  "/api/history",
  "/api/search?q=alice",
  "/api/facts",
  "/api/budget",
  "/api/conversations",
  "/api/conversations/c1",
  "/api/recent",
  "/api/stats",
  "/api/health/cards",
  "/api/checkup",
  "/api/style",
  "/api/style/brief",
  "/api/style/score",
];

describe("every answer of the API", () => {
  test.each(ROUTES)("GET %s has snake_case keys", async (route) => {
    const res = await handle(apiRequest("GET", route));
    expect(res.status).toBe(200);
    expect(offending(await res.json())).toEqual([]);
  });

  test("a card's form keeps the keys its frontmatter has, and only those may be other than snake_case", async () => {
    const res = await handle(apiRequest("GET", "/api/cards/people/Bob"));
    const card = (await res.json()) as Record<string, unknown>;
    expect(card.myField).toBe(1);
    expect(card.extra).toEqual({ myField: 1 });
    const { myField: _, ...ours } = card;
    expect(offending(ours)).toEqual([]);
  });

  test("times are ISO 8601 strings", async () => {
    const conversations = (await (await handle(apiRequest("GET", "/api/conversations"))).json()) as {
      conversations: { last_seen: unknown }[];
    };
    expect(conversations.conversations[0]!.last_seen).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const card = (await (await handle(apiRequest("GET", "/api/cards/people/Zed"))).json()) as {
      mtime: unknown;
    };
    expect(card.mtime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
  });
});
