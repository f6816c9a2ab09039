/**
 * A load of chat conversations, and an upstream that checks what it receives: for bench/cluster.ts
 * (the full run) and the shortened run the end-to-end tests make (test/e2e/cluster-load.test.ts).
 *
 * `runLoad` keeps `conversations` conversations going over `connections` concurrent connections for
 * `seconds`: each connection takes a conversation no other one is using, sends its next turn (the whole
 * history, as a chat client does: the system prompt names the conversation, the user lines mention
 * cards now and then, one turn in four streams) and puts it back. A conversation that reaches
 * `turns` turns ends and a new one takes its place, so requests stay the same size however fast a
 * round goes. Given `tokens`, conversation slot N is a tenant's, `tokens[N % tokens.length]`
 * (`X-Lorecards-Token`, docs/DEPLOYMENT.md), so the tenants' conversations interleave. Every answer is
 * awaited; a status other than 200 or a network error is an error.
 *
 * `startCheckingUpstream` answers like the fake upstream and keeps, per conversation, what a chat
 * provider would see: the turns in the order they came (a turn is the number of user messages), and
 * whether each request began with every message of the one before it (append-only) and named any
 * card's block twice. `verify` then compares that with what the clients had acknowledged: no turn
 * lost, none twice, none out of order.
 */

import type { Server } from "bun";
import { percentile } from "../../bench/_stats.ts";

const encoder = new TextEncoder();

export interface ConversationLog {
  /** The turn of each request, in the order they came. */
  turns: number[];
  /** The messages of the last request, each as JSON. */
  last: string[];
  /** Requests that did not begin with every message of the one before. */
  breaks: number;
  /** Requests in which a card's heading (`### title [kind]`) appeared more than once. */
  twice: number;
}

export interface CheckingUpstream {
  url: string;
  logs: Map<string, ConversationLog>;
  close(): Promise<void>;
}

/** The conversation a system prompt names (`[load TAG N]`). */
const NAMED = /\[load ([^\]]+)\]/;
const HEADING = /^### .+ \[[a-z]+\]$/gm;

export function startCheckingUpstream(): CheckingUpstream {
  const logs = new Map<string, ConversationLog>();
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const text = await req.text();
      if (req.method !== "POST") return new Response("the checking upstream answers chat requests only");
      const body = JSON.parse(text) as { messages: { role: string; content: unknown }[]; stream?: boolean };
      const messages = body.messages.map((m) => JSON.stringify(m));
      const name = NAMED.exec(text)?.[1];
      if (name !== undefined) {
        const log = logs.get(name) ?? { turns: [], last: [], breaks: 0, twice: 0 };
        log.turns.push(body.messages.filter((m) => m.role === "user").length);
        if (log.last.some((m, i) => messages[i] !== m)) log.breaks++;
        const headings = text.replaceAll("\\n", "\n").match(HEADING) ?? [];
        if (new Set(headings).size !== headings.length) log.twice++;
        log.last = messages;
        logs.set(name, log);
      }
      return answer(body.stream === true);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, logs, close: () => server.stop(true) };
}

function answer(stream: boolean): Response {
  const base = { id: "chatcmpl-load", model: "fake-model", created: 1 };
  const usage = { prompt_tokens: 1000, completion_tokens: 2, total_tokens: 1002 };
  if (!stream)
    return Response.json({
      ...base,
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: "Noted." }, finish_reason: "stop" }],
      usage,
    });
  const chunk = (delta: object, finish: string | null, extra: object = {}) =>
    `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  const events = [
    chunk({ role: "assistant", content: "" }, null),
    chunk({ content: "Noted." }, null),
    chunk({}, "stop", { usage }),
    "data: [DONE]\n\n",
  ];
  return new Response(encoder.encode(events.join("")), { headers: { "content-type": "text/event-stream" } });
}

export interface LoadOptions {
  /** The base URL requests go to (`/v1/chat/completions` is added). */
  target: string;
  /** Names this run's conversations, so runs on one upstream stay apart. */
  tag: string;
  conversations: number;
  connections: number;
  seconds: number;
  /** Turns a conversation runs before a new one takes its place (default 40). */
  turns?: number;
  /** The user's line for a conversation's turn (1-based). */
  line: (conversation: number, turn: number) => string;
  /** Tenants' tokens: conversation slot N speaks as `tokens[N % tokens.length]`. */
  tokens?: readonly string[];
}

export interface LoadResult {
  seconds: number;
  requests: number;
  errors: number;
  /** A few of the errors, to say what went wrong. */
  errorSamples: string[];
  /** Milliseconds per answered request, read to its end. */
  latencies: number[];
  /** Turns answered with 200, per conversation, by its name (`N.G`: the G-th conversation of slot N). */
  acknowledged: Map<string, number>;
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const maxTurns = o.turns ?? 40;
  const slots = Array.from({ length: o.conversations }, (_, n) => ({
    n,
    generation: 0,
    turn: 0,
    history: [] as object[],
  }));
  const acknowledged = new Map<string, number>();
  const free = [...slots];
  const latencies: number[] = [];
  const errorSamples: string[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + o.seconds * 1000;

  const send = async (slot: (typeof slots)[number]): Promise<void> => {
    if (slot.turn === maxTurns)
      Object.assign(slot, { generation: slot.generation + 1, turn: 0, history: [] });
    const name = `${slot.n}.${slot.generation}`;
    const t = slot.turn + 1;
    const system = { role: "system", content: `You are a warm companion. [load ${o.tag} ${name}]` };
    const user = { role: "user", content: o.line(slot.n, t) };
    const stream = t % 4 === 0;
    const at = performance.now();
    try {
      const res = await fetch(`${o.target}/v1/chat/completions`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-lorecards-conversation": `${o.tag}-${name}`,
          ...(o.tokens && { "x-lorecards-token": o.tokens[slot.n % o.tokens.length]! }),
        },
        body: JSON.stringify({
          model: "gpt-load",
          messages: [system, ...slot.history, user],
          ...(stream && { stream: true }),
        }),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`status ${res.status}: ${text.slice(0, 200)}`);
      latencies.push(performance.now() - at);
      slot.turn = t;
      acknowledged.set(name, t);
      slot.history.push(user, { role: "assistant", content: "Noted." });
    } catch (err) {
      errors++;
      if (errorSamples.length < 5) errorSamples.push(`${o.tag}-${name} turn ${t}: ${err}`);
    }
  };

  await Promise.all(
    Array.from({ length: o.connections }, async () => {
      while (performance.now() < deadline) {
        const slot = free.shift();
        if (slot === undefined) {
          await Bun.sleep(1);
          continue;
        }
        await send(slot);
        free.push(slot);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { seconds, requests: latencies.length + errors, errors, errorSamples, latencies, acknowledged };
}

export interface Verdict {
  /** Acknowledged turns the upstream never saw. */
  lost: number;
  /** Turns the upstream saw more than once. */
  duplicated: number;
  /** Requests out of order, not append-only, or naming a card twice. */
  outOfOrder: number;
  breaks: number;
  twice: number;
}

/** What the upstream saw, against what the clients had acknowledged. */
export function verify(result: LoadResult, tag: string, logs: Map<string, ConversationLog>): Verdict {
  const v: Verdict = { lost: 0, duplicated: 0, outOfOrder: 0, breaks: 0, twice: 0 };
  for (const [name, acked] of result.acknowledged) {
    const log = logs.get(`${tag} ${name}`) ?? { turns: [], last: [], breaks: 0, twice: 0 };
    const seen = new Set(log.turns);
    for (let t = 1; t <= acked; t++) if (!seen.has(t)) v.lost++;
    v.duplicated += log.turns.length - seen.size;
    v.outOfOrder += log.turns.filter((t, i) => t !== i + 1).length;
    v.breaks += log.breaks;
    v.twice += log.twice;
  }
  return v;
}

export function summary(result: LoadResult): { rate: number; p50: number; p99: number } {
  return {
    rate: (result.requests - result.errors) / result.seconds,
    p50: percentile(result.latencies, 50),
    p99: percentile(result.latencies, 99),
  };
}
