// The context door over HTTP: `POST /api/explain` answers as `lorecards explain --json` does, and the
// conversations the gateway and the hook recorded are listed and opened turn by turn, behind the same
// guards as every other endpoint. The handler is called in-process on a real vault and a memory store.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createApi } from "../../src/api/index.ts";
import { type Engine, openEngine } from "../../src/recall/index.ts";
import { openStore, type Store } from "../../src/state/index.ts";
import { API_HOST, apiRequest } from "../support/api-request.ts";
import { turnRecord } from "../support/turn-record.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const BASE = `http://${API_HOST}`;
let root: string;
let engine: Engine;
let store: Store;
let handle: (req: Request) => Promise<Response>;

beforeEach(async () => {
  root = makeVault();
  fs.writeFileSync(
    path.join(root, "people", "Cy.md"),
    "---\ntitle: Cy\nkeywords: [Cy]\ncontext: manual\n---\nCy keeps the keys.\n",
  );
  engine = await openEngine(root, { segmenter: false });
  store = await openStore("memory:");
  handle = createApi({ engine, hosts: ["127.0.0.1"], port: 8766, store });
});
afterEach(async () => {
  engine.close();
  await store.close();
  removeDir(root);
});

function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  return handle(apiRequest(method, url, body, headers));
}

// biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary response JSON by path.
const json = async (res: Response) => (await res.json()) as Record<string, any>;

describe("POST /api/explain", () => {
  test("one line per card that fired or nearly fired, and why a card asked about did not", async () => {
    const res = await call("POST", "/api/explain", {
      text: "Alice and Cy",
      cards: ["Cy", "the corner cafe"],
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    const byKey = Object.fromEntries(body.cards.map((c: { key: string }) => [c.key, c]));
    expect(byKey.Alice).toMatchObject({ verdict: "chosen", via: "named", tier: "volatile", asked: false });
    expect(byKey.Alice.line).toContain("“alice” in the current message");
    expect(byKey.Cy).toMatchObject({ verdict: "vetoed", reason: "not_automatic", asked: true });
    expect(byKey["the corner cafe"]).toMatchObject({
      verdict: "not_noticed",
      reason: "no_term",
      asked: true,
    });
    expect(body.injected).toContain("Alice");
    expect(body.conversation).toBeNull();
  });

  test("a card's private sections never come out, not even in its explanation", async () => {
    fs.writeFileSync(
      path.join(root, "people", "Zed.md"),
      "---\ntitle: Zed\nkeywords: [Zed]\n---\n## who\nZed rows.\n\n## correspondence\nZanzibar plans.\n",
    );
    engine.invalidate();
    const text = await (await call("POST", "/api/explain", { text: "Zed", cards: ["Zed"] })).text();
    expect(text).toContain("Zed rows.");
    expect(text).not.toContain("Zanzibar");
  });

  test("`card` names one card, as `cards` names several", async () => {
    const body = await json(await call("POST", "/api/explain", { text: "hello", card: "Cy" }));
    expect(body.cards.map((c: { key: string }) => c.key)).toEqual(["Cy"]);
  });

  test("a name that finds no card is 404 not_found", async () => {
    const res = await call("POST", "/api/explain", { text: "hi", cards: ["Nobody"] });
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: "not_found", detail: 'cards: no card named "Nobody"' });
  });

  test.each([
    [{}, "explain needs"],
    [{ text: "hi", cards: "Cy" }, "cards must be a list"],
    [{ text: "hi", cards: [1] }, "card names"],
    [{ text: "hi", turns: [{ role: "robot", text: "x" }] }, "turns[0]"],
    [{ text: "hi", conversation: 5 }, "conversation must be"],
  ])("%j is 400 invalid_input", async (body, detail) => {
    const res = await call("POST", "/api/explain", body);
    expect(res.status).toBe(400);
    expect((await json(res)).detail).toContain(detail);
  });

  test("with a conversation, its ledger says what is already in context, since which turn", async () => {
    await store.commitTurn("c1", {
      turn: 2,
      now: 1,
      injections: [{ id: "people/Alice", version: "1:1", turn: 2 }],
    });
    const body = await json(await call("POST", "/api/explain", { text: "Alice?", conversation: "c1" }));
    expect(body.conversation).toEqual({ id: "c1", turn: 3 });
    const alice = body.cards.find((c: { key: string }) => c.key === "Alice");
    expect(alice).toMatchObject({ verdict: "in_context", why: { in_context: { since_turn: 2 } } });
    expect(alice.line).toContain("already sent at turn 2");
  });

  test("a card the gateway sent long ago stays in context (replay); a hook session's comes back after 6 turns", async () => {
    const sent = { turn: 9, now: 1, injections: [{ id: "people/Alice", version: "1:1", turn: 1 }] };
    await store.commitTurn("gw", sent);
    await store.commitTurn("hook:s1", sent);
    const verdict = async (conversation: string, extra = {}) => {
      const body = await json(await call("POST", "/api/explain", { text: "Alice?", conversation, ...extra }));
      return body.cards.find((c: { key: string }) => c.key === "Alice").verdict;
    };
    expect(await verdict("gw")).toBe("in_context");
    expect(await verdict("hook:s1")).toBe("chosen");
    expect(await verdict("hook:s1", { reinject_after: 20 })).toBe("in_context");
  });

  test("an unknown conversation is 404", async () => {
    expect((await call("POST", "/api/explain", { text: "hi", conversation: "nope" })).status).toBe(404);
  });

  test("without X-Lorecards: 1 it is refused, as every write is", async () => {
    const res = await handle(
      new Request(`${BASE}/api/explain`, {
        method: "POST",
        headers: { host: API_HOST, "content-type": "application/json" },
        body: JSON.stringify({ text: "Alice" }),
      }),
    );
    expect(res.status).toBe(403);
  });
});

describe("GET /api/conversations", () => {
  const stable = {
    tier: "stable" as const,
    where: "first user message",
    text: "<s>rules</s>",
    cards: ["entry/rules"],
  };
  const volatile = (text: string, cards: string[], edited?: string[]) => ({
    tier: "volatile" as const,
    where: "newest user message",
    text,
    cards,
    ...(edited && { edited }),
  });

  test("lists the recorded conversations, and one opens to its turns in order with their blocks", async () => {
    await store.recordTurn(turnRecord("c1", 1, [stable, volatile("<v>Alice</v>", ["people/Alice"])]));
    await store.recordTurn(
      turnRecord("c1", 2, [volatile("<v>Alice 2</v>", ["people/Alice"], ["people/Alice"])], {
        leftOut: [{ id: "people/Bob", reason: "budget" }],
      }),
    );
    const list = await json(await call("GET", "/api/conversations"));
    expect(list.conversations).toEqual([
      expect.objectContaining({
        id: "c1",
        surface: "gateway",
        last_seen: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      }),
    ]);
    // What a person knows it by: the client, the model, when it ran, the cards that went in.
    expect(list.conversations[0]).toMatchObject({
      api: "openai",
      model: null,
      first_seen: new Date(Date.UTC(2026, 8, 13, 10, 1)).toISOString(),
      cards: ["entry/rules", "people/Alice"],
      card_count: 2,
      name: null,
    });
    const res = await call("GET", `/api/conversations/${encodeURIComponent("c1")}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const one = await json(res);
    expect(one.id).toBe("c1");
    expect(one.turns.map((t: { turn: number }) => t.turn)).toEqual([1, 2]);
    expect(one.turns[0].blocks.map((b: { tier: string }) => b.tier)).toEqual(["stable", "volatile"]);
    expect(one.turns[1].blocks[0]).toMatchObject({ text: "<v>Alice 2</v>", edited: ["people/Alice"] });
    expect(one.turns[1].left_out).toEqual([{ id: "people/Bob", reason: "budget" }]);
  });

  test("an id with a slash or colon is one percent-encoded segment", async () => {
    await store.recordTurn(turnRecord("hook:a/b", 1, [], { surface: "hook" }));
    const one = await json(await call("GET", `/api/conversations/${encodeURIComponent("hook:a/b")}`));
    expect(one.id).toBe("hook:a/b");
  });

  test("a conversation is named with PUT, and the name is listed with it; an empty name takes it away", async () => {
    await store.recordTurn(turnRecord("c1", 1, [stable], { model: "gpt-5" }));
    const put = await call("PUT", "/api/conversations/c1", { name: "  Planning the Lyon trip " });
    expect(await json(put)).toEqual({ id: "c1", name: "Planning the Lyon trip" });
    const list = await json(await call("GET", "/api/conversations"));
    expect(list.conversations[0]).toMatchObject({ name: "Planning the Lyon trip", model: "gpt-5" });
    await call("PUT", "/api/conversations/c1", { name: "" });
    expect((await json(await call("GET", "/api/conversations"))).conversations[0].name).toBeNull();
    expect((await call("PUT", "/api/conversations/nope", { name: "x" })).status).toBe(404);
    expect((await call("PUT", "/api/conversations/c1", { name: 3 })).status).toBe(400);
    expect((await call("PUT", "/api/conversations/c1", { name: "x".repeat(201) })).status).toBe(400);
  });

  test("a conversation with no turns recorded is 404", async () => {
    expect((await call("GET", "/api/conversations/nope")).status).toBe(404);
  });

  test("a request from another site is refused", async () => {
    const res = await call("GET", "/api/conversations", undefined, { origin: "http://evil.example" });
    expect(res.status).toBe(403);
  });
});
