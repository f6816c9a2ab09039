/**
 * The answer shapes of the client fake upstream (`client-upstream.ts`): an Anthropic message and its
 * SSE stream (https://docs.anthropic.com/en/api/messages-streaming), a Responses API object and its
 * event stream (https://platform.openai.com/docs/api-reference/responses-streaming), complete enough
 * that the official SDKs, Claude Code and Codex CLI accept them. Pure: a reply in, text out.
 */

export interface Reply {
  id: string;
  /** Responses API only: the id of the assistant message item. */
  itemId?: string;
  model: string;
  text: string;
  toolUse?: { id: string; name: string; input: Record<string, unknown> };
  /** The request body, as text and parsed: token counts and echoed fields derive from it. */
  raw: string;
  body: Record<string, unknown>;
}

// A stable clock: answers must be the same for the same request.
const CREATED_AT = 1_796_000_000;

const inputTokens = (r: Reply) => Math.max(1, Math.ceil(r.raw.length / 4));
const outputTokens = (r: Reply) =>
  Math.max(1, Math.ceil((r.text.length + JSON.stringify(r.toolUse ?? "").length) / 4));

/** The text split into word-sized deltas, as a model streams it. */
const pieces = (text: string) => text.split(/(?<= )/).filter((p) => p !== "");

const sseEvent = (name: string, data: object) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

function anthropicContent(r: Reply): object[] {
  return r.toolUse ? [{ type: "tool_use", ...r.toolUse }] : [{ type: "text", text: r.text }];
}

const stopReason = (r: Reply) => (r.toolUse ? "tool_use" : "end_turn");

export function anthropicMessage(r: Reply): object {
  return {
    id: r.id,
    type: "message",
    role: "assistant",
    model: r.model,
    content: anthropicContent(r),
    stop_reason: stopReason(r),
    stop_sequence: null,
    usage: {
      input_tokens: inputTokens(r),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: outputTokens(r),
      service_tier: "standard",
    },
  };
}

export function anthropicEvents(r: Reply): string {
  const start = {
    id: r.id,
    type: "message",
    role: "assistant",
    model: r.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: {
      input_tokens: inputTokens(r),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 1,
      service_tier: "standard",
    },
  };
  const events = [
    sseEvent("message_start", { type: "message_start", message: start }),
    sseEvent("ping", { type: "ping" }),
  ];
  const block = r.toolUse ? { type: "tool_use", ...r.toolUse, input: {} } : { type: "text", text: "" };
  events.push(
    sseEvent("content_block_start", { type: "content_block_start", index: 0, content_block: block }),
  );
  const deltas = r.toolUse
    ? [{ type: "input_json_delta", partial_json: JSON.stringify(r.toolUse.input) }]
    : pieces(r.text).map((text) => ({ type: "text_delta", text }));
  for (const delta of deltas)
    events.push(sseEvent("content_block_delta", { type: "content_block_delta", index: 0, delta }));
  events.push(sseEvent("content_block_stop", { type: "content_block_stop", index: 0 }));
  events.push(
    sseEvent("message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopReason(r), stop_sequence: null },
      usage: { output_tokens: outputTokens(r) },
    }),
  );
  events.push(sseEvent("message_stop", { type: "message_stop" }));
  return events.join("");
}

const outputPart = (text: string) => ({ type: "output_text", annotations: [], logprobs: [], text });

function outputItem(r: Reply, status: "in_progress" | "completed"): object {
  const content = status === "completed" ? [outputPart(r.text)] : [];
  return { id: r.itemId, type: "message", status, content, role: "assistant" };
}

export function responseObject(r: Reply, status: "in_progress" | "completed"): object {
  const done = status === "completed";
  const b = r.body;
  return {
    id: r.id,
    object: "response",
    created_at: CREATED_AT,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: b.instructions ?? null,
    max_output_tokens: b.max_output_tokens ?? null,
    model: r.model,
    output: done ? [outputItem(r, "completed")] : [],
    output_text: done ? r.text : "",
    parallel_tool_calls: b.parallel_tool_calls ?? true,
    previous_response_id: b.previous_response_id ?? null,
    prompt_cache_key: b.prompt_cache_key ?? null,
    reasoning: { effort: null, summary: null },
    store: b.store ?? true,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: b.tool_choice ?? "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage: done
      ? {
          input_tokens: inputTokens(r),
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: outputTokens(r),
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: inputTokens(r) + outputTokens(r),
        }
      : null,
    user: null,
    metadata: {},
  };
}

export function responseEvents(r: Reply): string {
  const at = { item_id: r.itemId, output_index: 0, content_index: 0 };
  const events: [string, object][] = [
    ["response.created", { response: responseObject(r, "in_progress") }],
    ["response.in_progress", { response: responseObject(r, "in_progress") }],
    ["response.output_item.added", { output_index: 0, item: outputItem(r, "in_progress") }],
    ["response.content_part.added", { ...at, part: outputPart("") }],
    ...pieces(r.text).map((delta): [string, object] => [
      "response.output_text.delta",
      { ...at, delta, logprobs: [] },
    ]),
    ["response.output_text.done", { ...at, text: r.text, logprobs: [] }],
    ["response.content_part.done", { ...at, part: outputPart(r.text) }],
    ["response.output_item.done", { output_index: 0, item: outputItem(r, "completed") }],
    ["response.completed", { response: responseObject(r, "completed") }],
  ];
  return events.map(([type, data], i) => sseEvent(type, { type, sequence_number: i, ...data })).join("");
}
