/**
 * The deterministic fake upstream that the real client traffic under
 * shared/fixtures/real/clients/ was recorded against (its README, "The fake upstream"): Anthropic
 * `…/messages` and OpenAI `…/responses`, streamed or JSON, answering `Noted, turn N.`, plus one `Read`
 * tool call so Claude Code runs a real tool loop. Everything it sends is a function of the request
 * body, so a replay can tell whether an answer reached the client unchanged. It records every request
 * and the exact bytes it answered. The answer shapes live in `_client-answers.ts`.
 */

import { createHash } from "node:crypto";
import {
  anthropicEvents,
  anthropicMessage,
  type Reply,
  responseEvents,
  responseObject,
} from "./_client-answers.ts";
import { answerOf } from "./protocol-answers.ts";
import type { CardFile } from "./vault.ts";

export interface Received {
  method: string;
  /** Path with its query string, e.g. `/v1/messages?beta=true`. */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The request body as text, exactly as it arrived. */
  body: string;
  /** The status and the full body text this fake answered with. */
  status: number;
  answer: string;
}

export interface ClientUpstream {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export function startClientUpstream(): ClientUpstream {
  const received: Received[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = await req.text();
      const [status, contentType, answer] = route(req.method, url.pathname, body, url.search);
      received.push({
        method: req.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(req.headers.entries()),
        body,
        status,
        answer,
      });
      return new Response(answer, { status, headers: { "content-type": contentType } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    close: async () => {
      await server.stop(true);
    },
  };
}

/** What the fake answers: status, content type and the whole body, computed up front. */
export function route(method: string, pathname: string, body: string, search = ""): [number, string, string] {
  const parsed = parseObject(body);
  if (method === "POST" && parsed && pathname.endsWith("/messages")) {
    const reply = anthropicReply(parsed, body);
    return parsed.stream === true
      ? [200, "text/event-stream", anthropicEvents(reply)]
      : [200, "application/json", JSON.stringify(anthropicMessage(reply))];
  }
  if (method === "POST" && parsed && pathname.endsWith("/responses")) {
    const reply = responsesReply(parsed, body);
    return parsed.stream === true
      ? [200, "text/event-stream", responseEvents(reply)]
      : [200, "application/json", JSON.stringify(responseObject(reply, "completed"))];
  }
  const other = method === "POST" && answerOf(pathname, search, body, chatReply(parsed));
  if (other) return other;
  // The model list, which SillyTavern's Text Completion mode asks for when it connects.
  if (method === "GET" && pathname.endsWith("/v1/models"))
    return [
      200,
      "application/json",
      JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model" }] }),
    ];
  const error = {
    type: "error",
    error: { type: "not_found_error", message: `no route ${method} ${pathname}` },
  };
  return [404, "application/json", JSON.stringify(error)];
}

function parseObject(text: string): Obj | null {
  try {
    const value: unknown = JSON.parse(text);
    return isObj(value) ? value : null;
  } catch {
    return null;
  }
}

const hex = (text: string, n: number) => createHash("sha256").update(text).digest("hex").slice(0, n);

/** Text parts of a message's content (a string is one part). */
function textsOf(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((p) => (isObj(p) && typeof p.text === "string" ? [p.text] : []));
}

const onlyToolResults = (content: unknown) =>
  Array.isArray(content) && content.length > 0 && content.every((p) => isObj(p) && p.type === "tool_result");

function anthropicReply(body: Obj, raw: string): Reply {
  const base = { id: `msg_fake${hex(raw, 16)}`, model: String(body.model ?? "fake-model"), raw, body };
  const messages = Array.isArray(body.messages) ? body.messages.filter(isObj) : [];
  const users = messages.filter((m) => m.role === "user");
  const turn = users.filter((m) => !onlyToolResults(m.content)).length;
  const last = users.at(-1);
  if (last && onlyToolResults(last.content))
    return { ...base, text: `I read notes.txt; it says what you expected (turn ${turn}).` };
  // The prompt is the last user message's text parts joined by newlines (how the ids were hashed).
  const prompt = last && !onlyToolResults(last.content) ? textsOf(last.content).join("\n") : "";
  const offersRead = Array.isArray(body.tools) && body.tools.some((t) => isObj(t) && t.name === "Read");
  if (prompt.includes("notes.txt") && offersRead) {
    const cwd = workingDirectory(body, messages);
    const filePath = cwd ? `${cwd.replace(/\/+$/, "")}/notes.txt` : "notes.txt";
    return {
      ...base,
      text: "",
      toolUse: { id: `toolu_fake${hex(prompt, 16)}`, name: "Read", input: { file_path: filePath } },
    };
  }
  return { ...base, text: `Noted, turn ${turn}.` };
}

/**
 * Claude Code states its working directory in its environment text (`Primary working directory: …`
 * in the system prompt or a `role: "system"` message, `Working directory: …` in older versions).
 */
function workingDirectory(body: Obj, messages: Obj[]): string | null {
  const texts = [...textsOf(body.system), ...messages.flatMap((m) => textsOf(m.content))];
  for (const text of texts) {
    const match = /(?:Primary working directory|Working directory|cwd):[ \t]*([^\n]+)/i.exec(text);
    const dir = match?.[1]?.trim();
    if (dir) return dir;
  }
  return null;
}

function responsesReply(body: Obj, raw: string): Reply {
  const input = body.input;
  const turn =
    typeof input === "string"
      ? 1
      : Array.isArray(input)
        ? input.filter((i) => isObj(i) && i.role === "user").length
        : 0;
  return {
    id: `resp_fake${hex(raw, 16)}`,
    itemId: `msg_fake${hex(raw, 8)}`,
    model: String(body.model ?? "fake-model"),
    text: `Noted, turn ${turn}.`,
    raw,
    body,
  };
}

/**
 * The vault the client sessions are replayed against: one card per keyword their prompts use. No card's
 * text names another card's keyword, so one-hop reach adds nothing and the sessions show exactly the
 * placements the fixture README lists (reach has its own tests).
 */
export const CLIENT_CARDS: CardFile[] = [
  { dir: "people", key: "Zorblax", keywords: ["Zorblax"], body: "## who\nA trader who leaves notes.\n" },
  {
    dir: "places",
    key: "Vellmoor",
    keywords: ["Vellmoor"],
    body: "## where\nA harbour town in the north.\n",
  },
  {
    dir: "places",
    key: "Lantern Harbour",
    keywords: ["harbourmaster"],
    body: "## where\nThe northern harbour; its harbourmaster is Ilse.\n",
  },
];

/** Where a user turn starts in a text completion's prompt, in the chat templates the gateway reads. */
const USER_TURN = /<\|im_start\|>user|<\|start_header_id\|>user|<start_of_turn>user|\[INST\]/g;

/**
 * Chat Completions and the other protocols: `Noted, turn N.`, N counting the user messages (in a text
 * completion, the user turns of its prompt).
 */
function chatReply(body: Obj | null): string {
  if (typeof body?.prompt === "string") return `Noted, turn ${body.prompt.match(USER_TURN)?.length ?? 0}.`;
  const list = (body?.messages ?? body?.contents ?? []) as unknown[];
  const turn = Array.isArray(list) ? list.filter((m) => isObj(m) && m.role === "user").length : 0;
  return `Noted, turn ${turn}.`;
}
