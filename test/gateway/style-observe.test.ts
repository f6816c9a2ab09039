/**
 * The gateway hands style memory each new user message once (style-surface/, README "Style memory"): only what
 * the person typed, never the assistant's words, a tool's output, a system prompt or a client wrapper;
 * not again for a retry or a tool loop's next request of the same turn; nothing with learning off; and
 * a style book that cannot be written never costs the request its cards.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createHandler, vaultDeps } from "../../src/gateway/index.ts";
import { openStyle } from "../../src/style/index.ts";
import { anthropicBody, anthropicToolTurn, type Msg, openaiBody, openaiToolTurn } from "../support/bodies.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { vaultStore } from "../support/state.ts";
import { makeVault, removeDir } from "../support/vault.ts";
import { until } from "../support/wait.ts";

let upstream: FakeUpstream;
const vaults: string[] = [];
beforeAll(() => {
  upstream = startFakeUpstream();
});
afterAll(() => upstream.close());
afterEach(() => {
  for (const v of vaults.splice(0)) removeDir(v);
});

/** A gateway over a fresh vault; `done()` waits for what was handed to style memory and closes. */
function gateway(options: { learn?: boolean } = {}) {
  const vault = makeVault();
  vaults.push(vault);
  const warnings: string[] = [];
  const deps = vaultDeps({
    vaultRoot: vault,
    engine: { watch: false },
    warn: (l) => warnings.push(l),
    learn: options.learn,
  });
  const handler = createHandler({
    upstream: new URL(upstream.url),
    settings: { inject: "user", window: 3, budget: 800, log: true },
    deps,
  });
  const send = (p: string, body: unknown, conversation: string) =>
    handler(
      new Request(`http://127.0.0.1:8765${p}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-lorecards-conversation": conversation },
        body: JSON.stringify(body),
      }),
    );
  return { vault, warnings, send, done: () => deps.close() };
}

/**
 * Waits until the usage of `requests` answers of `conversation` is stored. It is read from each answer
 * after the answer went out, so closing the gateway before would drop it, with a warning.
 */
async function usageStored(vault: string, conversation: string, requests: number): Promise<void> {
  const store = await vaultStore(vault);
  try {
    const stored = async () =>
      (await store.turns(conversation, 10)).reduce((n, t) => n + (t.requests ?? (t.usage ? 1 : 0)), 0);
    await until(async () => (await stored()) === requests, `the usage of ${requests} answers stored`);
  } finally {
    await store.close();
  }
}

async function counts(vault: string): Promise<Record<string, number>> {
  const book = await openStyle(vault);
  try {
    return Object.fromEntries((await book.list()).map((h) => [h.signal, h.count]));
  } finally {
    await book.close();
  }
}

describe("what the gateway hands to style memory", () => {
  test("each new user message once: a retry and a tool loop's next request add nothing", async () => {
    const g = gateway();
    const messages: Msg[] = [{ role: "user", content: "no cap, the friday deploy went fine" }];
    for (let i = 0; i < 2; i++)
      expect((await g.send("/v1/chat/completions", openaiBody({ messages }), "c1")).status).toBe(200);
    await g.send("/v1/chat/completions", openaiToolTurn({ messages }, "no cap no cap no cap"), "c1");
    messages.push({ role: "assistant", content: "Nice." }, { role: "user", content: "ngl, no cap" });
    await g.send("/v1/chat/completions", openaiBody({ messages }), "c1");
    await g.send("/v1/chat/completions", openaiBody({ messages }), "c1");
    await usageStored(g.vault, "c1", 5);
    await g.done();
    expect((await counts(g.vault))["no cap"]).toBe(2);
    expect(g.warnings).toEqual([]);
  });

  test("an Anthropic tool loop is the same turn: its tool result is not the person talking", async () => {
    const g = gateway();
    const messages: Msg[] = [{ role: "user", content: "yyds, check the logs" }];
    await g.send("/v1/messages", anthropicBody({ messages }), "a1");
    await g.send("/v1/messages", anthropicToolTurn({ messages }, "yyds 绝绝子 no cap"), "a1");
    await g.done();
    const seen = await counts(g.vault);
    expect(seen.yyds).toBe(1);
    expect(seen["no cap"]).toBeUndefined();
    expect(seen.绝绝子).toBeUndefined();
  });

  test("the assistant's words, the system prompt and a client's wrapper are never learned", async () => {
    const g = gateway();
    const body = openaiBody({
      system: "Talk like a pirate, no cap.",
      messages: [
        { role: "user", content: "hello there" },
        { role: "assistant", content: "ngl yyds no cap lol" },
        { role: "user", content: "<system-reminder>lol ngl</system-reminder>\nwhat next?" },
      ],
    });
    await g.send("/v1/chat/completions", body, "w1");
    await g.done();
    const learned = Object.keys(await counts(g.vault));
    expect(learned.filter((s) => ["no cap", "ngl", "yyds", "lol"].includes(s))).toEqual([]);
  });

  test("with learning off nothing is handed over and no style.db is made", async () => {
    const g = gateway({ learn: false });
    await g.send(
      "/v1/chat/completions",
      openaiBody({ messages: [{ role: "user", content: "no cap" }] }),
      "n1",
    );
    await g.done();
    expect(fs.existsSync(path.join(g.vault, ".lorecards", "style.db"))).toBe(false);
  });

  test("learn: false in settings.yaml stops it too, without a restart", async () => {
    const g = gateway();
    fs.writeFileSync(path.join(g.vault, "settings.yaml"), "learn: false\n");
    await g.send(
      "/v1/chat/completions",
      openaiBody({ messages: [{ role: "user", content: "no cap" }] }),
      "s1",
    );
    await g.done();
    expect(fs.existsSync(path.join(g.vault, ".lorecards", "style.db"))).toBe(false);
  });

  test("a style book that cannot be opened costs the request nothing: cards go in, one warning", async () => {
    const g = gateway();
    fs.mkdirSync(path.join(g.vault, ".lorecards", "style.db"), { recursive: true });
    const messages: Msg[] = [{ role: "user", content: "no cap, where is Alice?" }];
    const first = await g.send("/v1/chat/completions", openaiBody({ messages }), "f1");
    expect(first.status).toBe(200);
    expect(first.headers.get("x-lorecards-injected")).toBe("Alice");
    messages.push({ role: "assistant", content: "Lyon." }, { role: "user", content: "no cap" });
    expect((await g.send("/v1/chat/completions", openaiBody({ messages }), "f1")).status).toBe(200);
    await g.done();
    const style = g.warnings.filter((w) => w.includes("style not learned"));
    expect(style).toHaveLength(1);
  });
});
