/**
 * The gateway over the store seam: it runs the same on the in-memory store as on state.db (so nothing
 * in the pipeline depends on SQLite), and a store that cannot be opened or fails mid-request costs
 * the request nothing: it is forwarded unchanged, with a line on stderr.
 */

import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createHandler, type VaultDeps, vaultDeps } from "../../src/gateway/index.ts";
import type { Store } from "../../src/state/index.ts";
import { type Msg, openaiBody } from "../support/bodies.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { BASE } from "../support/gateway.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let upstream: FakeUpstream;
beforeAll(() => {
  upstream = startFakeUpstream();
});
afterAll(async () => {
  await upstream.close();
});

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

const last = () => upstream.received[upstream.received.length - 1]!;

function gateway(deps: VaultDeps) {
  cleanup.push(() => deps.close());
  const handler = createHandler({
    upstream: new URL(upstream.url),
    settings: { inject: "user", window: 3, reinjectAfter: 6, budget: 800, log: true },
    deps,
  });
  const messages: Msg[] = [];
  return async (line: string) => {
    messages.push({ role: "user", content: line });
    const raw = JSON.stringify(openaiBody({ messages }));
    const res = await handler(
      new Request(`${BASE}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-lorecards-conversation": "c" },
        body: raw,
      }),
    );
    messages.push({ role: "assistant", content: "Noted." });
    return { injected: res.headers.get("x-lorecards-injected"), raw, sent: last().body };
  };
}

function vault(): string {
  const root = makeVault();
  cleanup.push(() => removeDir(root));
  return root;
}

describe("the gateway on the memory: store", () => {
  test("injects, replays the same bytes and dedupes, and writes no state to the vault", async () => {
    const root = vault();
    const warnings: string[] = [];
    const deps = vaultDeps({
      vaultRoot: root,
      state: "memory:",
      engine: { watch: false },
      warn: (l) => warnings.push(l),
    });
    const say = gateway(deps);
    const first = await say("the friday deploy?");
    expect(first.injected).toBe("the Friday deploy");
    const second = await say("and Alice?");
    expect(second.injected).toBe("Alice");
    // The first turn's block is re-inserted byte for byte: upstream sees the last request plus more.
    const before = JSON.parse(first.sent).messages[0];
    expect(JSON.parse(second.sent).messages[0]).toEqual(before);
    const hits = await (await deps.store()).recentHits(5);
    expect(hits.map((h) => h.keys)).toEqual([["Alice"], ["the Friday deploy"]]);
    expect(fs.existsSync(path.join(root, ".lorecards", "state.db"))).toBe(false);
    expect(fs.existsSync(path.join(root, ".lorecards", "hits.jsonl"))).toBe(false);
    expect(warnings).toEqual([]);
  });
});

/** A gateway on a memory: store whose `op` always rejects. */
async function breaking(op: keyof Store) {
  const warnings: string[] = [];
  const deps = vaultDeps({
    vaultRoot: vault(),
    state: "memory:",
    engine: { watch: false },
    warn: (l) => warnings.push(l),
  });
  const store = await deps.store();
  (store as unknown as Record<keyof Store, unknown>)[op] = () => Promise.reject(new Error(`${op} broke`));
  return { say: gateway(deps), warnings };
}

describe("the gateway on a store that fails", () => {
  test("a state setting that names no store forwards every request unchanged, with a line each", async () => {
    const root = vault();
    const warnings: string[] = [];
    const say = gateway(
      vaultDeps({ vaultRoot: root, state: "nope:", engine: { watch: false }, warn: (l) => warnings.push(l) }),
    );
    const r = await say("the friday deploy?");
    expect(r.injected).toBeNull();
    expect(r.sent).toBe(r.raw);
    expect(warnings[0]).toContain("not a state store: nope:");
  });

  test.each(["loadConversation", "markerSecret"] as const)(
    "a store whose %s rejects: the request is forwarded unchanged",
    async (op) => {
      const { say, warnings } = await breaking(op);
      const r = await say("the friday deploy?");
      expect(r.injected).toBeNull();
      expect(r.sent).toBe(r.raw);
      expect(warnings[0]).toContain(`${op} broke`);
    },
  );

  test("a store whose commitTurn rejects: the cards still go in (no request waits for the disk), and stderr says the turn's state was not saved", async () => {
    const { say, warnings } = await breaking("commitTurn");
    expect((await say("the friday deploy?")).injected).toBe("the Friday deploy");
    expect(warnings[0]).toContain("was not saved");
    expect(warnings[0]).toContain("commitTurn broke");
  });

  test("a store whose hit log rejects: the cards still go in, and stderr says the line was lost", async () => {
    const { say, warnings } = await breaking("appendHits");
    expect((await say("the friday deploy?")).injected).toBe("the Friday deploy");
    expect(warnings[0]).toContain("hit log not written (appendHits broke)");
  });
});
