/**
 * How a fake upstream answers the Gemini API, Ollama's `/api/chat` and text completion (OpenAI's
 * `/v1/completions`, KoboldAI's `/api/v1/generate`), streamed or not, in each API's documented shape.
 * The usage each answer reports is a function of the request (`USAGE`), so a test knows what the
 * upstream billed: prompt tokens are the body's length / 4, with a tenth of them cached where the
 * API reports a cached part, and output tokens the reply's length.
 */

type Obj = Record<string, unknown>;

/** What a request of `bytes` characters with a reply of `reply` costs, as the fake bills it. */
export function billOf(bytes: number, reply: string): { prompt: number; cached: number; output: number } {
  const prompt = Math.ceil(bytes / 4);
  return { prompt, cached: Math.floor(prompt / 10), output: reply.length };
}

const GEMINI = /\/models\/[^/:]+:(generateContent|streamGenerateContent)$/;

type Answer = [status: number, contentType: string, text: string];
const json = (value: unknown): Answer => [200, "application/json", JSON.stringify(value)];

/** The answer for one of these APIs, or null when the path is none of them. */
export function protocolAnswer(
  pathname: string,
  search: string,
  raw: string,
  reply: string,
): Response | null {
  const answer = answerOf(pathname, search, raw, reply);
  return answer && new Response(answer[2], { status: answer[0], headers: { "content-type": answer[1] } });
}

/** The same as status, content type and text (the client fake upstream's form), Chat Completions too. */
export function answerOf(pathname: string, search: string, raw: string, reply: string): Answer | null {
  if (pathname.endsWith("/chat/completions")) {
    const body = parse(raw);
    return chatAnswer(body.stream === true, reply, billOf(raw.length, reply), body);
  }
  return otherAnswer(pathname, search, raw, reply);
}

/** The request's JSON object; {} for anything else (a fuzzer's `null`, a list, text that is not JSON). */
function parse(raw: string): Obj {
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Obj) : {};
  } catch {
    return {};
  }
}

function otherAnswer(pathname: string, search: string, raw: string, reply: string): Answer | null {
  const body = parse(raw);
  const bill = billOf(raw.length, reply);
  const gemini = GEMINI.exec(pathname);
  if (gemini)
    return geminiAnswer(gemini[1] === "streamGenerateContent", search.includes("alt=sse"), reply, bill, body);
  if (pathname.endsWith("/api/chat")) return ollamaAnswer(body.stream !== false, reply, bill, body);
  if (pathname.endsWith("/v1/completions")) return completionAnswer(body.stream === true, reply, bill, body);
  if (pathname.endsWith("/api/v1/generate")) return json({ results: [{ text: reply }] });
  return null;
}

type Bill = ReturnType<typeof billOf>;

function geminiAnswer(stream: boolean, sse: boolean, reply: string, bill: Bill, body: Obj): Answer {
  const usage = (output: number) => ({
    promptTokenCount: bill.prompt,
    cachedContentTokenCount: bill.cached,
    candidatesTokenCount: output,
    totalTokenCount: bill.prompt + output,
  });
  // A client asking for JSON by schema (Gemini CLI's router) gets an object that fits it.
  const config = (body.generationConfig ?? {}) as Obj;
  const text = config.responseJsonSchema || config.responseSchema ? schemaAnswer(config) : reply;
  const chunk = (t: string, done: boolean, output: number) => ({
    candidates: [
      { content: { role: "model", parts: [{ text: t }] }, index: 0, ...(done && { finishReason: "STOP" }) },
    ],
    usageMetadata: usage(output),
    modelVersion: "gemini-fake",
  });
  if (!stream) return json(chunk(text, true, text.length));
  const half = Math.ceil(text.length / 2);
  const chunks = [chunk(text.slice(0, half), false, half), chunk(text.slice(half), true, text.length)];
  if (!sse) return json(chunks);
  const events = chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join("");
  return [200, "text/event-stream", events];
}

/** Gemini CLI's model router asks for `{complexity_reasoning, complexity_score}`; any other schema gets `{}`. */
function schemaAnswer(config: Obj): string {
  const schema = (config.responseJsonSchema ?? config.responseSchema) as Obj;
  const props = (schema.properties ?? {}) as Record<string, Obj>;
  const out: Obj = {};
  for (const [name, p] of Object.entries(props))
    out[name] = /INTEGER|NUMBER|integer|number/.test(String(p.type)) ? 10 : "simple";
  return JSON.stringify(out);
}

function ollamaAnswer(stream: boolean, reply: string, bill: Bill, body: Obj): Answer {
  const base = { model: String(body.model ?? "fake"), created_at: "2026-01-01T00:00:00Z" };
  const final = {
    ...base,
    message: { role: "assistant", content: stream ? "" : reply },
    done: true,
    done_reason: "stop",
    total_duration: 1000,
    prompt_eval_count: bill.prompt,
    eval_count: bill.output,
  };
  if (!stream) return json(final);
  const lines = reply.split(/(?<= )/).map((piece) => ({
    ...base,
    message: { role: "assistant", content: piece },
    done: false,
  }));
  const text = [...lines, final].map((l) => `${JSON.stringify(l)}\n`).join("");
  return [200, "application/x-ndjson", text];
}

function completionAnswer(stream: boolean, reply: string, bill: Bill, body: Obj): Answer {
  const usage = {
    prompt_tokens: bill.prompt,
    completion_tokens: bill.output,
    total_tokens: bill.prompt + bill.output,
    prompt_tokens_details: { cached_tokens: bill.cached },
  };
  const base = {
    id: "cmpl-fake",
    object: "text_completion",
    created: 1,
    model: String(body.model ?? "fake"),
  };
  if (!stream) return json({ ...base, choices: [{ index: 0, text: reply, finish_reason: "stop" }], usage });
  const events = [
    { ...base, choices: [{ index: 0, text: reply, finish_reason: null }] },
    { ...base, choices: [{ index: 0, text: "", finish_reason: "stop" }], usage },
  ];
  const text = `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")}data: [DONE]\n\n`;
  return [200, "text/event-stream", text];
}

function chatAnswer(stream: boolean, reply: string, bill: Bill, body: Obj): Answer {
  const usage = {
    prompt_tokens: bill.prompt,
    completion_tokens: bill.output,
    total_tokens: bill.prompt + bill.output,
  };
  const base = { id: "chatcmpl-fake", created: 1, model: String(body.model ?? "fake") };
  if (!stream)
    return json({
      ...base,
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop" }],
      usage,
    });
  const events = [
    {
      ...base,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { role: "assistant", content: reply } }],
    },
    {
      ...base,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
      usage,
    },
  ];
  return [
    200,
    "text/event-stream",
    `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")}data: [DONE]\n\n`,
  ];
}
