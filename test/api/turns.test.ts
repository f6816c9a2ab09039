// Given turns are replayed one user message at a time (`try --turns`, `POST /api/try`, `POST
// /api/explain`): each run reads only the turns a recall reads, so a replay is linear in the number of
// turns (4,000 turns, 226 KB, took 7.8 s and 20,000 never answered when every run read every turn before
// it); the number is bounded (MAX_TURNS, said by name); and a long replay never holds up the other
// requests of the editor (measured in CPU time between two turns of the event loop, not wall-clock).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApi } from "../../src/api/index.ts";
import { type Engine, openEngine, type RecallResult, simulate, type Turn } from "../../src/recall/index.ts";
import { MAX_TURNS } from "../../src/recall/turns.ts";
import { apiRequest } from "../support/api-request.ts";
import { growth, linearLimit } from "../support/growth.ts";
import { watchStretches } from "../support/stretch.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let root = "";
let engine: Engine;
let api: (req: Request) => Promise<Response>;
beforeAll(async () => {
  root = makeVault();
  engine = await openEngine(root, { segmenter: false, watch: false });
  api = createApi({ engine, hosts: ["127.0.0.1"], port: 8766 });
});
afterAll(() => {
  engine.close();
  removeDir(root);
});

/** `n` earlier turns, user and assistant in turn, naming cards now and then. */
function turns(n: number): Turn[] {
  return Array.from({ length: n }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    text: i % 7 === 0 ? `and alice at the corner cafe, turn ${i}` : `a plain message number ${i}`,
  }));
}

const body = (n: number) => JSON.stringify({ text: "what about the friday deploy?", turns: turns(n) });

describe("a replay of given turns", () => {
  test("hands each run only the turns a recall reads, however many came before", async () => {
    const reach = await engine.reach();
    const read: number[] = [];
    const counting = (t: readonly Turn[], o: object): Promise<RecallResult> => {
      read.push(t.length);
      return engine.recall(t, o);
    };
    const given = [...turns(1000), { role: "user" as const, text: "and alice?" }];
    await simulate(counting, given, {}, reach);
    expect(read).toHaveLength(501);
    expect(Math.max(...read)).toBe(reach);
  });

  test(`takes at most ${MAX_TURNS} earlier turns, and says so`, async () => {
    const res = await api(apiRequest("POST", "/api/try", body(MAX_TURNS + 1)));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe(
      `turns holds ${MAX_TURNS + 1} turns; at most ${MAX_TURNS} are replayed (each user message is a recall)`,
    );
  });
});

describe.each(["/api/try", "/api/explain"])("%s with many turns", (path) => {
  const call = async (raw: string) => {
    const res = await api(apiRequest("POST", path, raw));
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };

  test("costs time linear in the number of turns", async () => {
    const g = await growth(call, body, 250, 8);
    expect(g.ratio).toBeLessThan(linearLimit(8));
  }, 120_000);

  test("never works more than 100 ms of CPU without letting another request in", async () => {
    const watch = watchStretches();
    await call(body(MAX_TURNS));
    expect(watch.stop()).toBeLessThan(100);
  }, 120_000);
});
