/**
 * The usage tap never stands between the client and its answer (usage-harness.ts sets the scene): the
 * bytes arrive as the upstream sent them, compressed or not, and as it sends them; a client that goes
 * away still stops the upstream; a store that cannot record the usage costs one line on stderr.
 */

import { describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { createHandler } from "../../src/gateway/index.ts";
import type { PipelineDeps } from "../../src/gateway/pipeline.ts";
import { alice, headers, usageGateway } from "./usage-harness.ts";

const gw = usageGateway();
const encoder = new TextEncoder();

describe("the client's stream, untouched", () => {
  test.each([
    ["a gzip-encoded JSON answer", "gzip-raw", false],
    ["an event stream", "gpt-4o", true],
  ])("%s reaches the client byte for byte as the upstream sent it", async (_name, model, stream) => {
    const res = await fetch(`${gw.base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "accept-encoding": "gzip", ...headers(`raw-${model}`) },
      body: JSON.stringify({
        model,
        stream,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: alice }],
      }),
      decompress: false,
    } as RequestInit);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const sent = encoder.encode(gw.upstream.sent.at(-1)!.body);
    expect(res.headers.get("content-encoding")).toBe(model.startsWith("gzip") ? "gzip" : null);
    expect(Buffer.from(bytes).equals(Buffer.from(model.startsWith("gzip") ? gzipSync(sent) : sent))).toBe(
      true,
    );
    await gw.nextUsage();
  });

  test("the first event reaches the client while the upstream is still answering", async () => {
    const res = await fetch(`${gw.base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers("gated") },
      body: JSON.stringify({
        model: "gate",
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: alice }],
      }),
    });
    const reader = res.body!.getReader();
    const whole = gw.upstream.sent.at(-1)!.body;
    // The upstream holds the rest until the gate opens: this read returns only if nothing waits for it.
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe(whole.slice(0, whole.indexOf("\n\n") + 2));
    gw.upstream.gate.resolve();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read())
      rest += new TextDecoder().decode(r.value);
    expect(first + rest).toBe(whole);
    expect((await gw.nextUsage()).conversation).toBe("gated");
  });

  test("a client that goes away mid-stream still stops the upstream", async () => {
    const client = new AbortController();
    const res = await fetch(`${gw.base}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers("gone") },
      body: JSON.stringify({
        model: "hang",
        max_tokens: 8,
        stream: true,
        messages: [{ role: "user", content: alice }],
      }),
      signal: client.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    client.abort();
    const stopped = await Promise.race([
      gw.upstream.hangStopped.then(() => true),
      Bun.sleep(5000).then(() => false),
    ]);
    expect(stopped).toBe(true);
    // What message_start reported is still the turn's usage: the provider bills the input regardless.
    expect((await gw.nextUsage()).usage).toEqual({ uncached: 12, cacheRead: 3000, cacheWrite: 0, output: 1 });
  });
});

describe("recording usage fails safe", () => {
  test("a store that cannot record the usage costs one line on stderr, never the answer", async () => {
    const lines: string[] = [];
    const warned = Promise.withResolvers<void>();
    const failing: PipelineDeps = {
      ...gw.deps,
      store: async () => ({
        ...(await gw.deps.store()),
        recordUsage: async () => {
          throw new Error("disk full");
        },
      }),
      warn: (l) => {
        lines.push(l);
        warned.resolve();
      },
    };
    const handler = createHandler({
      upstream: new URL(gw.upstream.url),
      settings: { inject: "user", window: 3, reinjectAfter: 6, budget: 800, log: false },
      deps: failing,
    });
    const res = await handler(
      new Request(`${gw.base}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers("failing") },
        body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: alice }] }),
      }),
    );
    expect(await res.text()).toBe(gw.upstream.sent.at(-1)!.body);
    await warned.promise;
    expect(lines).toEqual([
      expect.stringMatching(/^lorecards gateway: usage of failing turn \d+ not recorded \(disk full\)$/),
    ]);
  });
});
