/**
 * OpenAI routes requests that share a `prompt_cache_key` to the same prompt cache. A chat
 * completions or Responses request the gateway writes gets its conversation's key, the same on every
 * turn, unless the client set its own; Anthropic has no such field, and a request the gateway leaves
 * alone is forwarded byte for byte.
 */
import { describe, expect, test } from "bun:test";
import { anthropicBody, openaiBody, responsesBody } from "../support/bodies.ts";
import { gatewaySuite } from "../support/gateway.ts";

const suite = gatewaySuite();

const sentBody = () => JSON.parse(suite.upstream().received.at(-1)!.body) as Record<string, unknown>;

describe("prompt_cache_key", () => {
  test.each([
    ["chat completions", "/v1/chat/completions", openaiBody],
    ["Responses", "/v1/responses", responsesBody],
  ])(
    "a %s request that gets cards carries its conversation's key, the same on the next turn",
    async (_n, path, make) => {
      const { h } = await suite.setup();
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
    const { h } = await suite.setup();
    await h.send("/v1/chat/completions", {
      ...openaiBody({ messages: [{ role: "user", content: "Alice" }] }),
      prompt_cache_key: "mine",
    });
    expect(sentBody().prompt_cache_key).toBe("mine");
  });

  test("an Anthropic request gets none, and a request the gateway leaves alone is forwarded byte for byte", async () => {
    const { h } = await suite.setup();
    await h.send("/v1/messages", anthropicBody({ messages: [{ role: "user", content: "Alice" }] }));
    expect(sentBody()).not.toHaveProperty("prompt_cache_key");
    const quiet = JSON.stringify(
      openaiBody({ messages: [{ role: "user", content: "nothing to see here" }] }),
    );
    await h.send("/v1/chat/completions", JSON.parse(quiet));
    expect(suite.upstream().received.at(-1)!.body).toBe(quiet);
  });
});
