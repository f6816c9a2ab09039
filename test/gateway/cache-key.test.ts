/**
 * OpenAI routes requests that share a `prompt_cache_key` to the same prompt cache. Toward OpenAI's own
 * API a chat completions or Responses request the gateway writes gets its conversation's key, the same
 * on every turn, unless the client set its own; toward any other server only with
 * `--prompt-cache-key`, since a server that speaks the protocol may refuse a field it does not know,
 * and would refuse exactly the requests that got cards. Anthropic has no such field, and a request the
 * gateway leaves alone is forwarded byte for byte.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createHandler, takesPromptCacheKey, vaultDeps } from "../../src/gateway/index.ts";
import { anthropicBody, openaiBody, responsesBody } from "../support/bodies.ts";
import { gatewaySuite } from "../support/gateway.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const suite = gatewaySuite();

const sentBody = () => JSON.parse(suite.upstream().received.at(-1)!.body) as Record<string, unknown>;

describe("prompt_cache_key", () => {
  test.each([
    ["https://api.openai.com", true],
    ["https://API.OpenAI.com/v1/", true],
    ["http://127.0.0.1:8080", false],
    ["https://api.mistral.ai", false],
    ["https://openrouter.ai/api", false],
    ["https://my-resource.openai.azure.com/openai", false],
    ["https://api.openai.com.example.net", false],
  ])("the upstream %s takes one unasked: %p", (url, takes) => {
    expect(takesPromptCacheKey(new URL(url))).toBe(takes);
  });

  test.each([
    ["chat completions", "/v1/chat/completions", openaiBody],
    ["Responses", "/v1/responses", responsesBody],
  ])(
    "asked for, a %s request that gets cards carries its conversation's key, the same on the next turn",
    async (_n, path, make) => {
      const { h } = await suite.setup({ promptCacheKey: true });
      const first = [{ role: "user" as const, content: "Alice said hi" }];
      await h.send(path, make({ messages: first }));
      const key = sentBody().prompt_cache_key;
      expect(key).toMatch(/^lorecards-[0-9a-f]{32}$/);
      const next = [
        ...first,
        { role: "assistant" as const, content: "Hello!" },
        { role: "user" as const, content: "and Alice?" },
      ];
      await h.send(path, make({ messages: next }));
      expect(sentBody().prompt_cache_key).toBe(key);
    },
  );

  test("a key the client set is kept", async () => {
    const { h } = await suite.setup({ promptCacheKey: true });
    await h.send("/v1/chat/completions", {
      ...openaiBody({ messages: [{ role: "user", content: "Alice" }] }),
      prompt_cache_key: "mine",
    });
    expect(sentBody().prompt_cache_key).toBe("mine");
  });

  test("by default a server other than OpenAI's gets none, with the cards", async () => {
    const { h } = await suite.setup();
    const res = await h.send(
      "/v1/chat/completions",
      openaiBody({ messages: [{ role: "user", content: "Alice" }] }),
    );
    expect(res.headers.get("x-lorecards-injected")).toBe("Alice");
    expect(sentBody()).not.toHaveProperty("prompt_cache_key");
  });

  test("an Anthropic request gets none, and a request the gateway leaves alone is forwarded byte for byte", async () => {
    const { h } = await suite.setup({ promptCacheKey: true });
    await h.send("/v1/messages", anthropicBody({ messages: [{ role: "user", content: "Alice" }] }));
    expect(sentBody()).not.toHaveProperty("prompt_cache_key");
    const quiet = JSON.stringify(
      openaiBody({ messages: [{ role: "user", content: "nothing to see here" }] }),
    );
    await h.send("/v1/chat/completions", JSON.parse(quiet));
    expect(suite.upstream().received.at(-1)!.body).toBe(quiet);
  });
});

describe("a server that refuses fields it does not know", () => {
  const closers: (() => void)[] = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });

  /** As an OpenAI-compatible server validating with extra fields forbidden answers: 422 naming the field. */
  function strictServer() {
    const known = new Set(["model", "messages", "stream", "stream_options", "temperature", "max_tokens"]);
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const body = (await req.json()) as Record<string, unknown>;
        const extra = Object.keys(body).filter((k) => !known.has(k));
        if (extra.length > 0)
          return Response.json(
            {
              detail: extra.map((k) => ({
                type: "extra_forbidden",
                loc: ["body", k],
                msg: "Extra inputs are not permitted",
              })),
            },
            { status: 422 },
          );
        return Response.json({ choices: [{ index: 0, message: { role: "assistant", content: "Hi." } }] });
      },
    });
    closers.push(() => server.stop(true));
    return `http://127.0.0.1:${server.port}`;
  }

  test("with the defaults it takes the request that got cards", async () => {
    const vault = makeVault();
    const deps = vaultDeps({ vaultRoot: vault, engine: { watch: false }, warn: () => {} });
    closers.push(() => {
      deps.close();
      removeDir(vault);
    });
    const handler = createHandler({
      upstream: new URL(strictServer()),
      settings: { inject: "user", window: 3, log: false },
      deps,
    });
    const res = await handler(
      new Request("http://127.0.0.1:8765/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(openaiBody({ messages: [{ role: "user", content: "I saw Alice today" }] })),
      }),
    );
    expect(res.headers.get("x-lorecards-injected")).toBe("Alice");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ choices: [{ message: { content: "Hi." } }] });
  });
});
