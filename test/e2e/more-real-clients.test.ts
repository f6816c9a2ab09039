/**
 * The clients of the Gemini API, Ollama's `/api/chat` and more OpenAI-compatible coding CLIs, pinned in
 * package.json and driven live through the compiled gateway (client → recorder → `lorecards gateway` →
 * the client fake upstream, all on 127.0.0.1): Gemini CLI and `@google/genai` (Gemini API), the
 * `ollama` npm client, Qwen Code and Continue's CLI (Chat Completions). Two turns each, the second a
 * continuation of the first (`--resume`, `-c`, the SDK's own chat history). For the client's
 * conversation: each card arrives with the prompt that names it, once; every block stays in its message
 * and the upstream sees an append-only conversation wherever the client kept its own; nothing else in
 * the request changes; and what `stats` keeps for it is what the upstream billed, answer by answer.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import { GoogleGenAI } from "@google/genai";
import { Ollama } from "ollama";
import { billOf, storedTotals } from "../support/client-bill.ts";
import {
  type Arrival,
  appendOnlyBreaks,
  arrivals,
  duplicateCards,
  movedBlocks,
  otherChanges,
} from "../support/client-checks.ts";
import { binOf, type CliRun, describeRun, runContinue, runGemini, runQwen } from "../support/client-cli.ts";
import type { Exchange } from "../support/client-replay.ts";
import { type ClientSession, startClientSession } from "../support/client-session.ts";
import { CLIENT_CARDS } from "../support/client-upstream.ts";
import { prerequisite } from "../support/prerequisites.ts";

interface Scenario {
  name: string;
  /** Runs the client: CLI runs (checked for exit 0), or an SDK's calls (its answers' texts). */
  drive(s: ClientSession, home: string, cwd: string): Promise<CliRun[] | string[]>;
  /** The requests of the person's conversation (a client's side requests, its router's or memory agent's, aside). */
  mine(x: Exchange): boolean;
  /** [request of the conversation, message index, card]: every card that goes in. */
  arrivals: Arrival[];
  /** Programs it needs (skipped without them, failed under CI). */
  needs: string[];
  /**
   * The requests whose usage the conversation's stats hold (else those of `mine`): a side request
   * that carries the chat so far is counted in the turn it follows.
   */
  billed?: (x: Exchange) => boolean;
}

const FIRST = "Tell me about Zorblax please.";
const SECOND = "And where is Vellmoor?";
const systemOf = (x: Exchange) => JSON.stringify(x.sent.body.messages ?? x.sent.body.systemInstruction ?? "");

const SCENARIOS: Scenario[] = [
  {
    name: "Gemini CLI 0.61.0: gemini -p, then -p --resume latest",
    drive: async (s, home, cwd) => {
      const at = { home, cwd, baseUrl: s.url };
      return [await runGemini(["-p", FIRST], at), await runGemini(["-p", SECOND, "--resume", "latest"], at)];
    },
    // Its model router asks a small model first (generateContent with a JSON schema); the chat streams.
    mine: (x) => x.sent.path.includes(":streamGenerateContent"),
    // Content 0 holds its <session_context> part, then the first prompt; the second prompt is content 2.
    arrivals: [
      [1, 0, "Zorblax"],
      [2, 2, "Vellmoor"],
    ],
    needs: [binOf("gemini")],
  },
  {
    name: "@google/genai 3.3.0: a chat, sendMessage then sendMessageStream",
    drive: async (s) => {
      const ai = new GoogleGenAI({ apiKey: "dummy", httpOptions: { baseUrl: s.url } });
      const chat = ai.chats.create({
        model: "gemini-2.5-flash",
        config: { systemInstruction: "You are a harbour guide." },
      });
      const one = await chat.sendMessage({ message: FIRST });
      let two = "";
      for await (const chunk of await chat.sendMessageStream({ message: SECOND })) two += chunk.text ?? "";
      return [one.text ?? "", two];
    },
    mine: () => true,
    arrivals: [
      [1, 0, "Zorblax"],
      [2, 2, "Vellmoor"],
    ],
    needs: [],
  },
  {
    name: "ollama 0.6.4: chat streamed, then the history and a second message",
    drive: async (s) => {
      const ollama = new Ollama({ host: s.url });
      const messages = [
        { role: "system", content: "You are a harbour guide." },
        { role: "user", content: FIRST },
      ];
      let one = "";
      for await (const part of await ollama.chat({ model: "llama3.2", messages, stream: true }))
        one += part.message.content;
      messages.push({ role: "assistant", content: one }, { role: "user", content: SECOND });
      const two = await ollama.chat({ model: "llama3.2", messages, stream: false });
      return [one, two.message.content];
    },
    mine: () => true,
    arrivals: [
      [1, 1, "Zorblax"],
      [2, 3, "Vellmoor"],
    ],
    needs: [],
  },
  {
    name: "Qwen Code 0.24.4: qwen -p, then qwen -c -p",
    drive: async (s, home, cwd) => {
      const at = { home, cwd, baseUrl: `${s.url}/v1` };
      return [await runQwen(["-p", FIRST], at), await runQwen(["-c", "-p", SECOND], at)];
    },
    // Its memory agent reads each finished turn: the chat so far under a system prompt of its own, then
    // its task (src/clients.ts CLIENT_BOOKKEEPING), which is no turn of the person's. It only replays
    // the turn it follows, and what it costs is counted in that turn.
    mine: (x) => !systemOf(x).includes("memory extraction"),
    billed: () => true,
    arrivals: [
      [1, 1, "Zorblax"],
      [2, 3, "Vellmoor"],
    ],
    needs: [binOf("qwen")],
  },
  {
    name: "Continue CLI 1.5.47: cn -p, then cn -p --resume",
    drive: async (s, home, cwd) => {
      const at = { home, cwd, baseUrl: `${s.url}/v1` };
      return [await runContinue([FIRST], at), await runContinue(["--resume", SECOND], at)];
    },
    mine: () => true,
    arrivals: [
      [1, 1, "Zorblax"],
      [2, 3, "Vellmoor"],
    ],
    needs: [binOf("cn")],
  },
];

const installed = (sc: Scenario) =>
  sc.needs.every((bin) =>
    prerequisite(
      fs.existsSync(bin),
      `more-real-clients.test.ts (${sc.name})`,
      `${bin} is not installed (npm ci)`,
    ),
  );

const SESSION_MS = 420_000;
const FAST_MS = 10_000;

describe.each(SCENARIOS.filter(installed))("$name", (scenario) => {
  let session: ClientSession | undefined;
  let results: CliRun[] | string[] = [];
  let all: Exchange[] = [];
  let xs: Exchange[] = [];
  let billedXs: Exchange[] = [];
  const s = (): ClientSession => {
    if (!session) throw new Error("the session did not start");
    return session;
  };

  beforeAll(async () => {
    session = await startClientSession(CLIENT_CARDS);
    results = await scenario.drive(session, session.dir(), session.dir());
    all = await session.exchanges();
    xs = all.filter(scenario.mine);
    billedXs = all.filter(scenario.billed ?? scenario.mine);
  }, SESSION_MS);
  afterAll(async () => {
    await session?.close();
  });

  test(
    "the client finishes each turn with the fake upstream's answer",
    () => {
      const texts = results.map((r) => {
        if (typeof r === "string") return r;
        expect(r.code, describeRun(r)).toBe(0);
        return r.stdout;
      });
      expect(texts.map((t) => t.trim())).toEqual(["Noted, turn 1.", "Noted, turn 2."]);
    },
    FAST_MS,
  );

  test(
    "every chat request reaches the upstream once, and its answer comes back byte for byte",
    () => {
      expect(xs.length, s().gatewayStderr()).toBe(2);
      for (const [i, x] of all.entries()) {
        expect(x.status, `#${i + 1}`).toBe(200);
        expect(x.text, `#${i + 1}`).toBe(x.upstream?.answer ?? "");
      }
    },
    FAST_MS,
  );

  test(
    "cards arrive with the prompt that names them, once, and never from the client's own text",
    () => {
      expect(arrivals(xs, s().markers), s().gatewayStderr()).toEqual(scenario.arrivals);
      expect(duplicateCards(xs, s().markers)).toEqual([]);
    },
    FAST_MS,
  );

  test(
    "every block stays in its message, and the upstream sees an append-only conversation where the client kept its own",
    () => {
      expect(movedBlocks(xs, s().markers)).toEqual([]);
      expect(appendOnlyBreaks(xs)).toEqual([]);
    },
    FAST_MS,
  );

  test(
    "apart from our blocks the upstream gets what the client sent",
    () => {
      expect(otherChanges(all, s().markers)).toEqual([]);
    },
    FAST_MS,
  );

  test("stats: one turn per prompt typed, holding what the upstream billed for every answer (a side request's in the turn it follows)", async () => {
    // One turn per prompt the person typed, whatever else the client sent.
    const want = billOf(billedXs, xs.length);
    expect(await storedTotals(s().vault, want)).toEqual(want);
    // No test timeout of its own: the hang timeout, beyond storedTotals' own wait, lets a loaded
    // machine take a while to write the usage, and a usage that never adds up fails saying so.
  });
});
