/**
 * Reading usage from response bodies (src/gateway/_usage.ts): every shape the providers send, however
 * the body is cut into chunks, with either line ending, and the tap on a stream: the client's bytes
 * untouched, a compressed body read through its encoding, a broken one costing nothing but the usage.
 */

import { describe, expect, test } from "bun:test";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { tapUsage, UsageReader, usageOf } from "../../src/gateway/_usage.ts";
import { adapterNamed } from "../../src/gateway/index.ts";
import type { Usage } from "../../src/state/index.ts";
import { type Api, SHAPES } from "./usage-shapes.ts";

function read(api: Api, stream: boolean, pieces: string[]): Usage | null {
  const reader = new UsageReader(shapeOf(api), stream);
  for (const p of pieces) reader.write(p);
  return reader.end();
}

/** How a protocol reports usage: its adapter's shape. */
const shapeOf = (api: Api) => adapterNamed(api).usage;

/** The text cut every `size` characters. */
function cut(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

describe("usage in each provider's shape", () => {
  test.each(SHAPES)("$name", ({ api, stream, body, usage }) => {
    expect(read(api, stream, [body])).toEqual(usage);
  });

  test.each(SHAPES)("$name, cut into pieces of 1, 2, 7 and 64 characters", ({ api, stream, body, usage }) => {
    for (const size of [1, 2, 7, 64]) expect(read(api, stream, cut(body, size))).toEqual(usage);
  });

  test.each(SHAPES.filter((s) => s.stream))(
    "$name, with CRLF and CR line endings",
    ({ api, body, usage }) => {
      expect(read(api, true, cut(body.replaceAll("\n", "\r\n"), 3))).toEqual(usage);
      expect(read(api, true, [body.replaceAll("\n", "\r")])).toEqual(usage);
    },
  );

  test("an event's data split over several data lines is one document", () => {
    const body = 'data: {"choices":[],\ndata: "usage":{"prompt_tokens":9,"completion_tokens":1}}\n\n';
    expect(read("openai", true, [body])).toEqual({ uncached: 9, cacheRead: 0, cacheWrite: 0, output: 1 });
  });

  test("a stream cut off after message_start still gives the input it reported", () => {
    const start = `event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":40,"cache_read_input_tokens":2000,"output_tokens":1}}}\n\nevent: content_block_delta\ndata: {"type":"content_blo`;
    expect(read("anthropic", true, [start])).toEqual({
      uncached: 40,
      cacheRead: 2000,
      cacheWrite: 0,
      output: 1,
    });
  });

  test("a body deeper than the scanner follows, or with a usage value too large, finds nothing and throws nothing", () => {
    const deep = `${"[".repeat(100)}${"]".repeat(100)}`;
    expect(read("openai", false, [`{"a":${deep},"usage":{"prompt_tokens":3}}`])).toBeNull();
    const huge = `{"usage":{"prompt_tokens":3,"pad":"${"x".repeat(70_000)}"}}`;
    expect(read("openai", false, [huge])).toBeNull();
  });

  test.each([
    [
      "openai",
      { prompt_tokens: 100, prompt_tokens_details: { cached_tokens: 250 } },
      { uncached: 0, cacheRead: 100 },
    ],
    ["openai", { prompt_tokens: -5, completion_tokens: 2.7 }, { uncached: 0, output: 2 }],
    ["responses", { input_tokens: 8, input_tokens_details: null }, { uncached: 8, cacheRead: 0 }],
    ["anthropic", { cache_read_input_tokens: 64 }, { uncached: 0, cacheRead: 64 }],
  ] as const)("%s usage %j reads as %j", (api, raw, expected) => {
    expect(shapeOf(api).read(raw as Record<string, unknown>)).toMatchObject(expected);
  });

  test.each([
    ["openai", { completion_tokens: 3 }],
    ["responses", { output_tokens: 3 }],
    ["anthropic", { output_tokens: 3 }],
  ] as const)("%s usage without an input count (%j) is no usage", (api, raw) => {
    expect(shapeOf(api).read(raw)).toBeNull();
  });
});

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
}

/** `bytes` in pieces of `size`. */
function pieces(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

/** The bytes the tap's client branch gives, and the usage it reported. */
async function throughTap(chunks: Uint8Array[], headers: Record<string, string>, api: Api) {
  const found = Promise.withResolvers<Usage>();
  const client = tapUsage(streamOf(chunks), {
    shape: shapeOf(api),
    headers: new Headers(headers),
    onUsage: found.resolve,
  });
  const bytes = new Uint8Array(await new Response(client).arrayBuffer());
  return { bytes, found: await found.promise };
}

describe("the tap", () => {
  const anthropic = SHAPES.find((s) => s.name.startsWith("Anthropic stream (message_start"))!;
  const encoded = new TextEncoder().encode(anthropic.body);
  const sse = { "content-type": "text/event-stream" };

  test.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ] as const)(
    "a %s-encoded body reaches the client still encoded, byte for byte, and is read decoded",
    async (name, compress) => {
      const packed = new Uint8Array(compress(encoded));
      const { bytes, found } = await throughTap(
        pieces(packed, 5),
        { ...sse, "content-encoding": name },
        "anthropic",
      );
      expect(Buffer.from(bytes).equals(Buffer.from(packed))).toBe(true);
      expect(found).toEqual(anthropic.usage!);
    },
  );

  test("a body whose encoding we cannot read is passed on as the same stream, unread", async () => {
    const body = streamOf([encoded]);
    const headers = new Headers({ ...sse, "content-encoding": "compress" });
    expect(tapUsage(body, { shape: shapeOf("anthropic"), headers, onUsage: () => {} })).toBe(body);
    expect(await usageOf(streamOf([encoded]), { shape: shapeOf("anthropic"), headers })).toBeNull();
  });

  test("a body that says gzip but is not gives no usage and no error", async () => {
    const headers = new Headers({ ...sse, "content-encoding": "gzip" });
    expect(await usageOf(streamOf([encoded]), { shape: shapeOf("anthropic"), headers })).toBeNull();
  });

  test("a stream that breaks gives the usage seen before it broke", async () => {
    let sent = false;
    const broken = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent) return c.error(new Error("upstream broke"));
        sent = true;
        c.enqueue(encoded.slice(0, anthropic.body.indexOf("content_block_start")));
      },
    });
    expect(await usageOf(broken, { shape: shapeOf("anthropic"), headers: new Headers(sse) })).toEqual({
      uncached: 12,
      cacheRead: 3000,
      cacheWrite: 0,
      output: 1,
    });
  });

  test("a client that hangs up as soon as it has the last event: what had arrived is read, its usage with it", async () => {
    // The whole answer has arrived and waits on our branch when the client's abort comes (ollama-js
    // after its done line, an SDK after message_stop, while the answer's end waits for the commit).
    const aborted = new AbortController();
    aborted.abort();
    const headers = new Headers(sse);
    expect(
      await usageOf(streamOf(pieces(encoded, 7)), {
        shape: shapeOf("anthropic"),
        headers,
        signal: aborted.signal,
      }),
    ).toEqual(anthropic.usage!);
  });

  test("a client that hangs up while the upstream still streams: what had arrived is read, the rest cancelled", async () => {
    const aborted = new AbortController();
    let cancelled = false;
    const head = encoded.slice(0, anthropic.body.indexOf("content_block_start"));
    const endless = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(head);
        aborted.abort();
      },
      cancel() {
        cancelled = true;
      },
    });
    const headers = new Headers(sse);
    expect(await usageOf(endless, { shape: shapeOf("anthropic"), headers, signal: aborted.signal })).toEqual({
      uncached: 12,
      cacheRead: 3000,
      cacheWrite: 0,
      output: 1,
    });
    expect(cancelled).toBe(true);
  });

  test("a multi-byte character split between chunks neither breaks the client's bytes nor the reading", async () => {
    const body = '{"content":[{"text":"café 小林 😀"}],"usage":{"input_tokens":3,"output_tokens":1}}';
    const raw = new TextEncoder().encode(body);
    const { bytes, found } = await throughTap(
      pieces(raw, 1),
      { "content-type": "application/json" },
      "anthropic",
    );
    expect(new TextDecoder().decode(bytes)).toBe(body);
    expect(found).toEqual({ uncached: 3, cacheRead: 0, cacheWrite: 0, output: 1 });
  });
});
