/**
 * Chat request bodies for the gateway fuzz suite, one family per adapter (OpenAI chat completions,
 * Anthropic messages, OpenAI Responses): bodies each API accepts with odd text inside, the same shapes
 * with any field of the wrong type, bodies nested around the gateway's depth bound, other JSON, text
 * that is not JSON and raw bytes; and the headers a client may add.
 */
import fc from "fast-check";
import { anyString, hugeString, jsonValue, nested, shapedObject, shortString } from "./_arbitraries.ts";

const TRIGGERS = ["alice", "Friday deploy", "the corner cafe", "yak shaving", "crlf", "小林", "w17", "weird"];
const said = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...TRIGGERS), shortString), { maxLength: 5 })
      .map((p) => p.join(" ")),
  },
  { weight: 1, arbitrary: anyString },
  {
    weight: 1,
    arbitrary: fc.constant(
      "<!-- lorecards:000000000000 -->\nA memory surfaces:\n<!-- /lorecards:000000000000 -->\nalice",
    ),
  },
);
const role = fc.constantFrom(
  "user",
  "user",
  "assistant",
  "system",
  "developer",
  "tool",
  "function",
  "",
  "USER",
);
const model = fc.constantFrom("gpt-test", "claude-test", "x");
/** Something a field may hold instead of what the API says it holds. */
const odd = fc.oneof(
  jsonValue(["type", "text", "content", "role"], 2),
  fc.integer({ min: 500, max: 3000 }).map((d) => nested(d)),
);

const openaiPart = fc.oneof(
  fc.record({ type: fc.constant("text"), text: said }),
  fc.record({
    type: fc.constant("image_url"),
    image_url: fc.record({ url: fc.constant("data:image/png;base64,AAAA") }),
  }),
  shapedObject({ type: fc.constantFrom("text", "input_audio", "refusal", "x"), text: said }),
);
const openaiBody = shapedObject({
  model,
  stream: fc.boolean(),
  messages: fc.array(
    shapedObject({
      role,
      content: fc.oneof(said, fc.array(openaiPart, { maxLength: 3 }), fc.constant(null)),
      name: shortString,
    }),
    { maxLength: 6 },
  ),
  temperature: fc.double({ noNaN: true }),
  tools: fc.array(jsonValue([], 2), { maxLength: 2 }),
});

const anthropicPart = fc.oneof(
  fc.record({ type: fc.constant("text"), text: said }),
  fc.record({
    type: fc.constant("tool_result"),
    tool_use_id: shortString,
    content: fc.oneof(said, fc.array(fc.record({ type: fc.constant("text"), text: said }))),
  }),
  fc.record({ type: fc.constant("tool_use"), id: shortString, name: shortString, input: jsonValue([], 2) }),
  shapedObject({
    type: fc.constantFrom("text", "image", "thinking", "x"),
    text: said,
    cache_control: fc.constant({ type: "ephemeral" }),
  }),
);
const anthropicBody = shapedObject({
  model,
  max_tokens: fc.nat(4096),
  stream: fc.boolean(),
  system: fc.oneof(said, fc.array(anthropicPart, { maxLength: 2 })),
  messages: fc.array(
    shapedObject({ role, content: fc.oneof(said, fc.array(anthropicPart, { maxLength: 3 })) }),
    { maxLength: 6 },
  ),
  metadata: shapedObject({ user_id: shortString }),
});

const responsesItem = fc.oneof(
  shapedObject({
    type: fc.constantFrom("message", "message", "x"),
    role,
    content: fc.oneof(
      said,
      fc.array(
        shapedObject({ type: fc.constantFrom("input_text", "output_text", "input_image"), text: said }),
        { maxLength: 2 },
      ),
    ),
  }),
  shapedObject({
    type: fc.constantFrom("function_call", "function_call_output", "reasoning", "item_reference"),
    call_id: shortString,
    output: said,
  }),
);
const responsesBody = shapedObject({
  model,
  stream: fc.boolean(),
  instructions: said,
  input: fc.oneof(said, fc.array(responsesItem, { maxLength: 6 })),
  previous_response_id: fc.constantFrom("resp_1", ""),
  store: fc.boolean(),
});

/** Bodies each API accepts (odd text inside), so the pipeline gets past reading them. */
const turnRole = fc.constantFrom("user", "user", "assistant", "system");
const goodOpenai = fc.record({
  model,
  stream: fc.boolean(),
  messages: fc.array(
    fc.record({
      role: turnRole,
      content: fc.oneof(
        said,
        fc.array(fc.record({ type: fc.constant("text"), text: said }), { minLength: 1, maxLength: 2 }),
      ),
    }),
    { minLength: 1, maxLength: 6 },
  ),
});
const goodAnthropic = fc.record({
  model,
  max_tokens: fc.nat(4096),
  stream: fc.boolean(),
  system: said,
  messages: fc.array(
    fc.record({
      role: fc.constantFrom("user", "assistant"),
      content: fc.oneof(
        said,
        fc.array(fc.record({ type: fc.constant("text"), text: said }), { minLength: 1, maxLength: 2 }),
      ),
    }),
    { minLength: 1, maxLength: 6 },
  ),
});
const goodResponses = fc.record({
  model,
  stream: fc.boolean(),
  instructions: said,
  input: fc.oneof(
    said,
    fc.array(
      fc.record({
        role: turnRole,
        content: fc.oneof(
          said,
          fc.array(fc.record({ type: fc.constant("input_text"), text: said }), { maxLength: 2 }),
        ),
      }),
      {
        minLength: 1,
        maxLength: 6,
      },
    ),
  ),
});

export type Sent = { text: string } | { bytes: Uint8Array };

/** A body as sent: JSON of the shape (or any other value), text that is not JSON, or bytes. */
function sent(
  good: fc.Arbitrary<Record<string, unknown>>,
  shape: fc.Arbitrary<Record<string, unknown>>,
): fc.Arbitrary<Sent> {
  return fc.oneof(
    { weight: 6, arbitrary: good.map((b) => ({ text: JSON.stringify(b) })) },
    { weight: 4, arbitrary: shape.map((b) => ({ text: JSON.stringify(b) })) },
    // Deeply nested somewhere (around the gateway's bound of 1,000 levels).
    {
      weight: 1,
      arbitrary: fc
        .tuple(good, fc.integer({ min: 900, max: 5000 }))
        .map(([b, d]) => ({ text: JSON.stringify({ ...b, metadata: nested(d) }) })),
    },
    { weight: 1, arbitrary: odd.map((v) => ({ text: JSON.stringify(v) ?? "" })) },
    { weight: 1, arbitrary: fc.oneof(anyString, hugeString).map((text) => ({ text })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ bytes })) },
  );
}

export const headers = fc
  .record({
    "x-lorecards-conversation": fc.oneof(
      fc.constant(undefined),
      fc.constantFrom("c1", "c2"),
      shortString.filter((s) => /^[\x20-\x7e]*$/.test(s)),
    ),
    "x-claude-code-session-id": fc.oneof(fc.constant(undefined), fc.constant("cc-1")),
    "content-encoding": fc.oneof(
      { weight: 15, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constant("gzip") },
    ),
    "content-type": fc.constantFrom(
      "application/json",
      "application/json",
      "text/plain",
      "application/json; charset=utf-8",
    ),
  })
  .map(
    (h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>,
  );

export const ADAPTERS = [
  { name: "openai", path: "/v1/chat/completions", body: sent(goodOpenai, openaiBody) },
  { name: "anthropic", path: "/v1/messages", body: sent(goodAnthropic, anthropicBody) },
  { name: "responses", path: "/v1/responses", body: sent(goodResponses, responsesBody) },
] as const;
