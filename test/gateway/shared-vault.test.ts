/**
 * Two gateway processes on one vault share its state: a conversation can move between them and keep
 * its replay, and concurrent writes from both lose nothing.
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { statePath } from "../../src/state/index.ts";
import { type Msg, openaiBody } from "../support/bodies.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { messagesPrefix } from "../support/protocols.ts";
import { recentHitsOf } from "../support/state.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const BUN = path.resolve("node_modules/.bin/bun");
let upstream: FakeUpstream;
let vault: string;
const procs: Bun.Subprocess<"ignore", "pipe", "inherit">[] = [];
const urls: string[] = [];

async function spawnGateway(): Promise<string> {
  const proc = Bun.spawn([BUN, "test/support/gateway-process.ts", vault, upstream.url], {
    stdout: "pipe",
    stderr: "inherit",
  });
  procs.push(proc);
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error("gateway process exited before listening");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.trim();
}

beforeAll(async () => {
  upstream = startFakeUpstream();
  vault = makeVault();
  urls.push(await spawnGateway(), await spawnGateway());
});
afterAll(async () => {
  for (const p of procs) p.kill();
  await Promise.all(procs.map((p) => p.exited));
  await upstream.close();
  removeDir(vault);
});

const post = (base: string, body: unknown, conversation?: string) =>
  fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(conversation ? { "x-lorecards-conversation": conversation } : {}),
    },
    body: JSON.stringify(body),
  });

describe("two gateways on one vault", () => {
  test("a conversation alternating between them keeps its replay and its dedupe", async () => {
    const lines = [
      "the friday deploy",
      "Alice?",
      "the deploy again",
      "the corner cafe",
      "Alice again",
      "bye",
    ];
    const messages: Msg[] = [];
    const bodies: string[] = [];
    const injected: (string | null)[] = [];
    for (const [i, line] of lines.entries()) {
      messages.push({ role: "user", content: line });
      const res = await post(urls[i % 2]!, openaiBody({ messages }));
      injected.push(res.headers.get("x-lorecards-injected"));
      await res.text();
      bodies.push(upstream.received[upstream.received.length - 1]!.body);
      messages.push({ role: "assistant", content: "Noted." });
    }
    expect(injected).toEqual(["the Friday deploy", "Alice", null, "the corner cafe", null, null]);
    for (let i = 1; i < bodies.length; i++)
      expect(bodies[i]!.startsWith(messagesPrefix(bodies[i - 1]!))).toBe(true);
  });

  test("concurrent requests through both lose none of each other's writes", async () => {
    const n = 40;
    const responses = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        post(
          urls[i % 2]!,
          openaiBody({ messages: [{ role: "user", content: `Alice ${i}` }] }),
          `parallel-${i}`,
        ),
      ),
    );
    for (const r of responses) {
      expect(r.headers.get("x-lorecards-injected")).toBe("Alice");
      await r.text();
    }
    const db = new Database(statePath(vault), { readonly: true });
    try {
      const row = db
        .query(
          "SELECT count(*) AS n FROM replays JOIN conversations c ON c.n = replays.conversation " +
            "WHERE c.id LIKE 'parallel-%'",
        )
        .get() as { n: number };
      expect(row.n).toBe(n);
    } finally {
      db.close();
    }
    expect((await recentHitsOf(vault, 1000)).filter((h) => h.message.startsWith("Alice ")).length).toBe(n);
  });
});
