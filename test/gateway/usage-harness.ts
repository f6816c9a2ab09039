/**
 * The usage tests' setting (usage.test.ts, usage-stream.test.ts): a fake upstream on 127.0.0.1:0
 * that answers in each provider's shape (usage-shapes.ts), plain, gzip-encoded, held at a gate or
 * never finished, as the request's `model` asks; and a real gateway handler over a temporary vault,
 * served by Bun.serve, whose store reports each usage it records.
 */

import { afterAll, afterEach, beforeAll, expect } from "bun:test";
import { gzipSync } from "node:zlib";
import { createHandler, vaultDeps } from "../../src/gateway/index.ts";
import type { PipelineDeps } from "../../src/gateway/pipeline.ts";
import type { Store, Usage } from "../../src/state/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";
import {
  anthropicMessage,
  anthropicStream,
  openaiCompletion,
  openaiStream,
  response,
  responsesStream,
} from "./usage-shapes.ts";

const encoder = new TextEncoder();
export const STREAM_USAGE = {
  prompt_tokens: 1500,
  completion_tokens: 7,
  total_tokens: 1507,
  prompt_tokens_details: { cached_tokens: 1280 },
};
const ANTHROPIC_START = {
  input_tokens: 12,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 3000,
  output_tokens: 1,
};

interface Sent {
  model: string;
  request: Record<string, unknown>;
  /** Exactly the bytes the upstream sent, before any encoding. */
  body: string;
}

/** The fake upstream: `model` says how to answer ("gzip…" encoded, "gate" waits, "hang" never ends). */
export function startUpstream() {
  const sent: Sent[] = [];
  const gate = Promise.withResolvers<void>();
  const hangStopped = Promise.withResolvers<void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const request = (await req.json()) as Record<string, unknown>;
      const model = String(request.model);
      const stream = request.stream === true;
      const path = new URL(req.url).pathname;
      const text = "Alice is well.";
      const body =
        path === "/v1/messages"
          ? stream
            ? anthropicStream(text, ANTHROPIC_START, { output_tokens: 42 })
            : JSON.stringify(anthropicMessage(text))
          : path === "/v1/responses"
            ? stream
              ? responsesStream(text)
              : JSON.stringify(response(text))
            : stream
              ? openaiStream(
                  text,
                  (request.stream_options as { include_usage?: boolean })?.include_usage
                    ? STREAM_USAGE
                    : undefined,
                )
              : JSON.stringify(openaiCompletion(text));
      sent.push({ model, request, body });
      const type = stream ? "text/event-stream" : "application/json";
      if (model.startsWith("gzip")) {
        return new Response(gzipSync(encoder.encode(body)), {
          headers: { "content-type": type, "content-encoding": "gzip" },
        });
      }
      if (model === "gate" || model === "hang") {
        const cut = body.indexOf("\n\n") + 2;
        const held = new ReadableStream<Uint8Array>({
          async start(c) {
            c.enqueue(encoder.encode(body.slice(0, cut)));
            if (model === "hang") return;
            await gate.promise;
            c.enqueue(encoder.encode(body.slice(cut)));
            c.close();
          },
          cancel: () => hangStopped.resolve(),
        });
        req.signal.addEventListener("abort", () => hangStopped.resolve());
        return new Response(held, { headers: { "content-type": type } });
      }
      return new Response(body, { headers: { "content-type": type } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    sent,
    gate,
    hangStopped: hangStopped.promise,
    stop: () => server.stop(true),
  };
}

export interface Recorded {
  conversation: string;
  turn: number;
  usage: Usage;
}

/** The vault's store, with `recordUsage` telling `told` once it is written. */
function watched(store: Store, told: (r: Recorded) => void): Store {
  return {
    ...store,
    async recordUsage(conversation, turn, usage, at) {
      await store.recordUsage(conversation, turn, usage, at);
      told({ conversation, turn, usage });
    },
  };
}

/**
 * Registers the file's setup: one upstream, vault and gateway for the file; after each test, no
 * usage left unclaimed and no line on stderr. Its fields are there once the tests run.
 */
export function usageGateway() {
  const waiting: ((r: Recorded) => void)[] = [];
  const arrived: Recorded[] = [];
  const warnings: string[] = [];
  const it = {} as {
    upstream: ReturnType<typeof startUpstream>;
    deps: ReturnType<typeof vaultDeps>;
    base: string;
  };
  let vault = "";
  let gateway: ReturnType<typeof Bun.serve> | undefined;
  const told = (r: Recorded) => {
    const w = waiting.shift();
    if (w) w(r);
    else arrived.push(r);
  };
  beforeAll(() => {
    it.upstream = startUpstream();
    vault = makeVault();
    it.deps = vaultDeps({ vaultRoot: vault, engine: { watch: false }, warn: (l) => warnings.push(l) });
    const deps: PipelineDeps = { ...it.deps, store: async () => watched(await it.deps.store(), told) };
    const handler = createHandler({
      upstream: new URL(it.upstream.url),
      settings: { inject: "user", window: 3, reinjectAfter: 6, budget: 800, log: false },
      deps,
    });
    gateway = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      fetch: (req, server) => handler(req, server),
    });
    it.base = `http://127.0.0.1:${gateway.port}`;
  });
  afterAll(async () => {
    await gateway?.stop(true);
    await it.upstream?.stop();
    await it.deps?.close();
    removeDir(vault);
  });
  afterEach(() => {
    expect(arrived).toEqual([]);
    expect(warnings).toEqual([]);
  });
  return Object.assign(it, {
    /** The next usage the gateway gives the store. */
    nextUsage(): Promise<Recorded> {
      const ready = arrived.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise<Recorded>((resolve) => waiting.push(resolve));
    },
    /** The newest turn record of a conversation. */
    async storedTurn(conversation: string) {
      return (await (await it.deps.store()).turns(conversation, 5)).at(-1);
    },
  });
}

export const headers = (conversation: string) => ({ "x-lorecards-conversation": conversation });
export const alice = "how is alice?";
