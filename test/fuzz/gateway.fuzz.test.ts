// Fuzzing the gateway (createHandler through the test harness, over the fake upstream on a real socket)
// with bodies for every adapter: OpenAI chat completions, Anthropic messages, OpenAI Responses, and
// other paths that pass through. Bodies are valid-shaped with wrong types, odd parts and roles, huge
// or deeply nested values, or not JSON at all. The gateway never answers a status of its own (the fake
// upstream answers 200), forwards byte for byte what it does not inject into, keeps every other field
// of what it does, never touches a card file and never writes outside the vault.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { type Harness, harness } from "../support/gateway.ts";
import { ADAPTERS, headers, type Sent } from "./_chats.ts";
import {
  announce,
  attempt,
  expectFast,
  expectUntouched,
  fuzz,
  initOddVault,
  type Sandbox,
  sandbox,
  timeoutFor,
  type Untouched,
  untouched,
} from "./_support.ts";

announce("gateway");

const BUDGET = { runs: 700, ms: 3000 };
const PASS_BUDGET = { runs: 200, ms: 1500 };

/** The conversation's own fields: the only ones an injection may change. */
const CONVERSATION = new Set(["messages", "system", "input", "instructions"]);

/** The body as the upstream's recorder reads it: UTF-8, a lone surrogate sent as U+FFFD. */
function decoded(s: Sent): string {
  return new TextDecoder().decode("text" in s ? new TextEncoder().encode(s.text) : s.bytes);
}

describe("the gateway", () => {
  let upstream: FakeUpstream;
  let box: Sandbox;
  let h: Harness;
  let before: Untouched;
  beforeAll(async () => {
    upstream = startFakeUpstream();
    box = sandbox(initOddVault);
    // The key asked for, as toward OpenAI's own API: the one field the gateway may add is fuzzed too.
    h = harness(box.root, upstream, { promptCacheKey: true });
    // The first request opens the engine and loads the word segmenter: not part of any case's time.
    await (
      await h.send("/v1/chat/completions", {
        model: "x",
        messages: [{ role: "user", content: "小林 alice" }],
      })
    ).text();
    before = untouched(box);
  });
  afterAll(async () => {
    h.close();
    await upstream.close();
    box.remove();
  });

  async function roundTrip(path: string, body: Sent, hdrs: Record<string, string>) {
    const seen = upstream.received.length;
    const warned = h.warnings.length;
    const out = await attempt(async () => {
      const res = await h.sendRaw(
        path,
        "text" in body ? body.text : (body.bytes as Uint8Array<ArrayBuffer>),
        hdrs,
      );
      return {
        status: res.status,
        injected: res.headers.get("x-lorecards-injected"),
        text: await res.text(),
      };
    });
    await expectFast(out, `POST ${path}`);
    if (!out.ok) throw out.error;
    expect(upstream.received.length).toBe(seen + 1);
    expectUntouched(box, before, "the gateway never writes cards");
    return { ...out.value, got: upstream.received[seen]!.body, warnings: h.warnings.slice(warned) };
  }

  for (const adapter of ADAPTERS) {
    test(
      `${adapter.name}: answers what the upstream answered, and forwards untouched what it does not inject into`,
      async () => {
        await fuzz(
          `gateway/${adapter.name}`,
          fc.asyncProperty(adapter.body, headers, async (body, hdrs) => {
            const r = await roundTrip(adapter.path, body, hdrs);
            // The fake upstream answers every chat request with 200: any other status is the gateway's own.
            expect(r.status).toBe(200);
            const original = decoded(body);
            if (r.got === original) {
              expect(r.injected).toBeNull();
              return;
            }
            // Changed: only a JSON body we could read, never one we said we forwarded unchanged.
            expect(r.warnings.filter((w) => w.includes("unchanged"))).toEqual([]);
            expect(hdrs["content-encoding"]).toBeUndefined();
            const before = JSON.parse(original) as Record<string, unknown>;
            const after = JSON.parse(r.got) as Record<string, unknown>;
            for (const [k, v] of Object.entries(before))
              if (!CONVERSATION.has(k)) expect(after[k]).toEqual(v);
            // The one field the gateway adds (OpenAI's protocols): the conversation's prompt_cache_key,
            // when none was sent.
            const ours = adapter.name !== "anthropic" && !("prompt_cache_key" in before);
            const keys = Object.keys(after).filter((k) => !(ours && k === "prompt_cache_key"));
            expect(keys.sort()).toEqual(Object.keys(before).sort());
            if (ours) expect(String(after.prompt_cache_key)).toMatch(/^lorecards-[0-9a-f]{32}$/);
          }),
          BUDGET,
        );
      },
      timeoutFor(BUDGET),
    );
  }

  test(
    "other paths and methods pass through untouched",
    async () => {
      const path = fc.constantFrom(
        "/v1/embeddings",
        "/v1/v1/chat/completions",
        "/v1/completions",
        "/chat/completions/x",
        "/v1/files",
        "/",
      );
      const body = fc.oneof(...ADAPTERS.map((a) => a.body));
      await fuzz(
        "gateway/pass-through",
        fc.asyncProperty(path, body, headers, async (p, b, hdrs) => {
          const r = await roundTrip(p, b, hdrs);
          expect(r.status).toBe(200);
          expect(r.injected).toBeNull();
          expect(r.got).toBe(decoded(b));
        }),
        PASS_BUDGET,
      );
    },
    timeoutFor(PASS_BUDGET),
  );
});
