// Style memory's endpoints (docs/HTTP-API.md): the habits, the brief, and the controls, behind the
// same guards as every route (a write without `X-Lorecards: 1` is refused), with the book's not_found
// as a 404 and a bad query as a 400.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApi } from "../../src/api/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { openStyle } from "../../src/style/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const HOST = "127.0.0.1:8766";
const T0 = Date.parse("2026-01-01T00:00:00Z");
let root: string;
let engine: Engine;
let api: ReturnType<typeof createApi>;

beforeAll(async () => {
  root = makeVault();
  engine = await openEngine(root, { segmenter: false });
  api = createApi({ engine, hosts: ["127.0.0.1"], port: 8766, style: { now: () => T0 } });
  const book = await openStyle(root, { now: () => T0 });
  try {
    await book.observe("c1", "no cap, the deploy is done lol");
    await book.observe("c2", "no cap ✨");
    await book.observe("c2", "ngl that was close");
  } finally {
    await book.close();
  }
});
afterAll(() => {
  engine.close();
  removeDir(root);
});

async function call(method: string, path: string, write = method !== "GET") {
  const headers: Record<string, string> = { host: HOST };
  if (write) headers["x-lorecards"] = "1";
  const res = await api(new Request(`http://${HOST}${path}`, { method, headers }));
  // biome-ignore lint/suspicious/noExplicitAny: each test asserts the fields it needs.
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const signals = (body: Record<string, unknown>) => (body.habits as { signal: string }[]).map((h) => h.signal);

describe("the style endpoints", () => {
  test("GET /api/style lists the habits and whether learning is on; ?state= narrows it", async () => {
    const all = await call("GET", "/api/style");
    expect(all.status).toBe(200);
    expect(all.body.learning).toBe(true);
    expect(signals(all.body)).toContain("no cap");
    expect(signals(all.body)).toContain("ngl");
    const active = await call("GET", "/api/style?state=active");
    expect(signals(active.body)).toContain("no cap");
    expect(signals(active.body)).not.toContain("ngl");
    expect((await call("GET", "/api/style?state=sleepy")).status).toBe(400);
  });

  test("GET /api/style/brief gives the brief, and an ack for the revision already held", async () => {
    const full = await call("GET", "/api/style/brief");
    expect(full.body.kind).toBe("full");
    expect(full.body.text).toContain("no cap");
    const ack = await call("GET", `/api/style/brief?since=${full.body.revision}`);
    expect(ack.body).toMatchObject({ kind: "ack", revision: full.body.revision });
    expect((await call("GET", "/api/style/brief?since=-1")).status).toBe(400);
  });

  test("pin, unpin and forget a habit by its id; an unknown id is a 404", async () => {
    const id = (await call("GET", "/api/style")).body.habits.find(
      (h: { signal: string }) => h.signal === "ngl",
    ).id;
    const path = `/api/style/habits/${encodeURIComponent(id)}`;
    expect((await call("POST", `${path}/pin`)).body.habit.pinned).toBe(true);
    expect((await call("POST", `${path}/unpin`)).body.habit.pinned).toBe(false);
    expect(await call("DELETE", path)).toEqual({ status: 200, body: { forgotten: id } });
    expect((await call("DELETE", path)).status).toBe(404);
    expect((await call("POST", `${path}/pin`)).body.error).toBe("not_found");
  });

  test("pause and resume learning", async () => {
    expect((await call("POST", "/api/style/pause")).body).toEqual({ learning: false });
    expect((await call("GET", "/api/style")).body.learning).toBe(false);
    expect((await call("POST", "/api/style/resume")).body).toEqual({ learning: true });
  });

  test("a write without X-Lorecards: 1 is refused before the book is touched", async () => {
    const res = await call("POST", "/api/style/pause", false);
    expect(res.status).toBe(403);
    expect((await call("GET", "/api/style")).body.learning).toBe(true);
  });
});
