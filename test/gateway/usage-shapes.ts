/**
 * Response bodies in the shapes the providers send them (Anthropic Messages, OpenAI chat completions,
 * OpenAI Responses; JSON and event streams, field order as the APIs write it), with the usage each
 * reports, for the usage tap's tests and their fake upstream.
 */

import type { ApiName } from "../../src/gateway/index.ts";
import type { Usage } from "../../src/state/index.ts";

export type Api = ApiName;

export interface Shape {
  name: string;
  api: Api;
  stream: boolean;
  body: string;
  /** What the tap should read: null for a body that reports none. */
  usage: Usage | null;
}

const sse = (events: [string | null, unknown][]) =>
  events
    .map(
      ([event, data]) =>
        `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`,
    )
    .join("");

const anthropicUsage = {
  input_tokens: 12,
  cache_creation_input_tokens: 2048,
  cache_read_input_tokens: 1800,
  cache_creation: { ephemeral_5m_input_tokens: 2048, ephemeral_1h_input_tokens: 0 },
  output_tokens: 30,
  service_tier: "standard",
};

export const anthropicMessage = (text: string, usage: object = anthropicUsage) => ({
  id: "msg_01XFDUDYJgAACzvnptvVoYEL",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  // A reply that talks about usage must not be taken for it.
  content: [{ type: "text", text }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage,
});

export function anthropicStream(text: string, start: object, delta: object): string {
  const message = { ...anthropicMessage("", start), content: [], stop_reason: null };
  return sse([
    ["message_start", { type: "message_start", message }],
    [
      "content_block_start",
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ],
    ["ping", { type: "ping" }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: delta },
    ],
    ["message_stop", { type: "message_stop" }],
  ]);
}

const openaiUsage = {
  prompt_tokens: 2006,
  completion_tokens: 300,
  total_tokens: 2306,
  prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};

export const openaiCompletion = (text: string, usage: object = openaiUsage) => ({
  id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
  object: "chat.completion",
  created: 1741570283,
  model: "gpt-4o-2024-08-06",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: text, refusal: null, annotations: [] },
      logprobs: null,
      finish_reason: "stop",
    },
  ],
  usage,
  service_tier: "default",
  system_fingerprint: "fp_fc9f1d7035",
});

/** A chat completion stream; with `usage`, as when the client asked `stream_options.include_usage`. */
export function openaiStream(text: string, usage?: object): string {
  const base = {
    id: "chatcmpl-123",
    object: "chat.completion.chunk",
    created: 1694268190,
    model: "gpt-4o-mini",
    system_fingerprint: "fp_44709d6fcb",
  };
  const extra = usage ? { usage: null } : {};
  return sse([
    [
      null,
      {
        ...base,
        choices: [
          { index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null },
        ],
        ...extra,
      },
    ],
    [
      null,
      {
        ...base,
        choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }],
        ...extra,
      },
    ],
    [null, { ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }], ...extra }],
    ...(usage ? [[null, { ...base, choices: [], usage }] as [null, unknown]] : []),
    [null, "[DONE]"],
  ]);
}

const responsesUsage = {
  input_tokens: 5000,
  input_tokens_details: { cached_tokens: 4096 },
  output_tokens: 20,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 5020,
};

export const response = (text: string, usage: object | null = responsesUsage, status = "completed") => ({
  id: "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
  object: "response",
  created_at: 1741476542,
  status,
  error: null,
  model: "gpt-5-2025-08-07",
  output: [
    {
      type: "message",
      id: "msg_67ccd2bf17f0",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [] }],
    },
  ],
  parallel_tool_calls: true,
  usage,
  user: null,
  metadata: {},
});

export function responsesStream(text: string): string {
  const started = response("", null, "in_progress");
  const events: unknown[] = [
    { type: "response.created", response: { ...started, output: [] } },
    { type: "response.in_progress", response: { ...started, output: [] } },
    {
      type: "response.output_text.delta",
      item_id: "msg_67ccd2bf17f0",
      output_index: 0,
      content_index: 0,
      delta: text,
    },
    {
      type: "response.output_text.done",
      item_id: "msg_67ccd2bf17f0",
      output_index: 0,
      content_index: 0,
      text,
    },
    { type: "response.completed", response: response(text) },
  ];
  return sse(events.map((e, n) => [(e as { type: string }).type, { ...(e as object), sequence_number: n }]));
}

const TRICKY = 'Your "usage": {"prompt_tokens": 999} was fine.';

export const SHAPES: Shape[] = [
  {
    name: "Anthropic JSON",
    api: "anthropic",
    stream: false,
    body: JSON.stringify(anthropicMessage(TRICKY)),
    usage: { uncached: 12, cacheRead: 1800, cacheWrite: 2048, output: 30 },
  },
  {
    name: "Anthropic stream (message_start, then message_delta's output count)",
    api: "anthropic",
    stream: true,
    body: anthropicStream(
      TRICKY,
      { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 3000, output_tokens: 1 },
      { output_tokens: 42 },
    ),
    usage: { uncached: 12, cacheRead: 3000, cacheWrite: 0, output: 42 },
  },
  {
    name: "Anthropic stream whose message_delta carries the totals",
    api: "anthropic",
    stream: true,
    body: anthropicStream(
      "Hi",
      { input_tokens: 5, output_tokens: 1 },
      { input_tokens: 7, cache_read_input_tokens: 100, cache_creation_input_tokens: 9, output_tokens: 3 },
    ),
    usage: { uncached: 7, cacheRead: 100, cacheWrite: 9, output: 3 },
  },
  {
    name: "OpenAI chat JSON",
    api: "openai",
    stream: false,
    body: JSON.stringify(openaiCompletion(TRICKY)),
    usage: { uncached: 86, cacheRead: 1920, cacheWrite: 0, output: 300 },
  },
  {
    name: "OpenAI chat stream with include_usage",
    api: "openai",
    stream: true,
    body: openaiStream(TRICKY, {
      prompt_tokens: 1500,
      completion_tokens: 7,
      total_tokens: 1507,
      prompt_tokens_details: { cached_tokens: 1280 },
    }),
    usage: { uncached: 220, cacheRead: 1280, cacheWrite: 0, output: 7 },
  },
  {
    name: "OpenAI chat stream without include_usage",
    api: "openai",
    stream: true,
    body: openaiStream(TRICKY),
    usage: null,
  },
  {
    name: "OpenAI chat JSON of an older model (no prompt_tokens_details)",
    api: "openai",
    stream: false,
    body: JSON.stringify(
      openaiCompletion("ok", { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 }),
    ),
    usage: { uncached: 10, cacheRead: 0, cacheWrite: 0, output: 2 },
  },
  {
    name: "Responses JSON",
    api: "responses",
    stream: false,
    body: JSON.stringify(response(TRICKY)),
    usage: { uncached: 904, cacheRead: 4096, cacheWrite: 0, output: 20 },
  },
  {
    name: "Responses stream (usage in response.completed)",
    api: "responses",
    stream: true,
    body: responsesStream(TRICKY),
    usage: { uncached: 904, cacheRead: 4096, cacheWrite: 0, output: 20 },
  },
  {
    name: "an error body",
    api: "anthropic",
    stream: false,
    body: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
    usage: null,
  },
  {
    name: "a usage object at a path no API uses",
    api: "openai",
    stream: false,
    body: JSON.stringify({
      metadata: { usage: { prompt_tokens: 5 } },
      choices: [{ usage: { prompt_tokens: 6 } }],
    }),
    usage: null,
  },
];
