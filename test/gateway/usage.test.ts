/**
 * Usage measured through a real gateway with the official `openai` and `@anthropic-ai/sdk` clients,
 * served by Bun.serve in front of a fake upstream (usage-harness.ts): the clients get exactly what the
 * upstream sent, the store gets the turn's usage, read from JSON or the stream, plain or gzip-encoded.
 */

import { describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { alice, headers, STREAM_USAGE, usageGateway } from "./usage-harness.ts";
import { openaiCompletion } from "./usage-shapes.ts";

const gw = usageGateway();
const openai = (conversation: string) =>
  new OpenAI({
    apiKey: "sk-test",
    baseURL: `${gw.base}/v1`,
    maxRetries: 0,
    defaultHeaders: headers(conversation),
  });
const anthropic = (conversation: string) =>
  new Anthropic({
    apiKey: "sk-ant-test",
    baseURL: gw.base,
    maxRetries: 0,
    defaultHeaders: headers(conversation),
  });

describe("usage read through the gateway, with the official clients", () => {
  test.each(["gpt-4o", "gzip-gpt-4o"])(
    "OpenAI chat, JSON (%s): the client gets the upstream's usage, the store the turn's",
    async (model) => {
      const done = await openai(`chat-${model}`).chat.completions.create({
        model,
        messages: [{ role: "user", content: alice }],
      });
      expect(done.usage).toEqual(openaiCompletion("").usage as OpenAI.CompletionUsage);
      const got = await gw.nextUsage();
      expect(got).toMatchObject({
        conversation: `chat-${model}`,
        usage: { uncached: 86, cacheRead: 1920, cacheWrite: 0, output: 300 },
      });
      expect(await gw.storedTurn(`chat-${model}`)).toMatchObject({
        turn: got.turn,
        usage: got.usage,
        api: "openai",
      });
    },
  );

  test.each(["gpt-4o-mini", "gzip-gpt-4o-mini"])(
    "OpenAI chat, streamed with include_usage (%s): read from the last chunk",
    async (model) => {
      const stream = await openai(`stream-${model}`).chat.completions.create({
        model,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: alice }],
      });
      let last: OpenAI.ChatCompletionChunk | undefined;
      let text = "";
      for await (const chunk of stream) {
        last = chunk;
        text += chunk.choices[0]?.delta.content ?? "";
      }
      expect(text).toBe("Alice is well.");
      expect(last?.usage).toEqual(STREAM_USAGE as OpenAI.CompletionUsage);
      expect((await gw.nextUsage()).usage).toEqual({
        uncached: 220,
        cacheRead: 1280,
        cacheWrite: 0,
        output: 7,
      });
    },
  );

  test("OpenAI chat streamed without include_usage: the gateway does not ask for it, and records no usage", async () => {
    const client = openai("no-usage");
    const stream = await client.chat.completions.create({
      model: "gpt-4o",
      stream: true,
      messages: [{ role: "user", content: alice }],
    });
    for await (const _ of stream);
    expect(gw.upstream.sent.at(-1)!.request.stream_options).toBeUndefined();
    // The next request's usage comes in; the first one's never did.
    await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "and bob?" }],
    });
    await gw.nextUsage();
    const turns = await (await gw.deps.store()).turns("no-usage", 5);
    expect(turns.filter((t) => t.usage !== undefined)).toHaveLength(1);
  });

  test.each([false, true])(
    "Anthropic messages (stream: %p): input, cache read and write, output",
    async (stream) => {
      const client = anthropic(`anthropic-${stream}`);
      const params = {
        model: "claude-fake",
        max_tokens: 64,
        messages: [{ role: "user" as const, content: alice }],
      };
      const message = stream
        ? await client.messages.stream(params).finalMessage()
        : await client.messages.create(params);
      expect(message.content[0]).toMatchObject({ type: "text", text: "Alice is well." });
      const expected = stream
        ? { uncached: 12, cacheRead: 3000, cacheWrite: 0, output: 42 }
        : { uncached: 12, cacheRead: 1800, cacheWrite: 2048, output: 30 };
      expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: expected.output });
      expect((await gw.nextUsage()).usage).toEqual(expected);
      expect(await gw.storedTurn(`anthropic-${stream}`)).toMatchObject({ usage: expected });
    },
  );

  test.each([false, true])(
    "OpenAI Responses (stream: %p): read from the response, or response.completed",
    async (stream) => {
      const client = openai(`responses-${stream}`);
      if (stream) {
        const events = await client.responses.create({ model: "gpt-5", input: alice, stream: true });
        let completed: OpenAI.Responses.Response | undefined;
        for await (const e of events) if (e.type === "response.completed") completed = e.response;
        expect(completed?.usage).toMatchObject({ input_tokens: 5000, output_tokens: 20 });
      } else {
        const done = await client.responses.create({ model: "gpt-5", input: alice });
        expect(done.output_text).toBe("Alice is well.");
      }
      expect((await gw.nextUsage()).usage).toEqual({
        uncached: 904,
        cacheRead: 4096,
        cacheWrite: 0,
        output: 20,
      });
    },
  );
});
