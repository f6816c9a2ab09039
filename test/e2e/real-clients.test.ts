/**
 * The real Claude Code and Codex CLIs (pinned devDependencies) through the compiled gateway, live:
 * client → recording pass-through → `lorecards gateway` → the deterministic client fake upstream, all
 * on 127.0.0.1. Each session is driven the way shared/fixtures/real/clients/README.md recorded its
 * traffic (print mode with `--continue`, one tool loop, `codex exec` then `exec resume --last`), and
 * what the upstream receives is held to that README's guarantees against what the client really sent:
 * cards arrive with the prompt that names them, stay byte for byte, never twice, and nothing else in
 * the request or the streamed answer changes.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import {
  type Arrival,
  appendOnlyBreaks,
  arrivals,
  duplicateCards,
  misplacedToolResults,
  movedBlocks,
  otherChanges,
} from "../support/client-checks.ts";
import {
  CLAUDE,
  CLAUDE_NEWEST,
  type CliRun,
  describeRun,
  runClaude,
  runCodex,
} from "../support/client-cli.ts";
import type { Exchange } from "../support/client-replay.ts";
import { type ClientSession, isChat, startClientSession } from "../support/client-session.ts";
import { CLIENT_CARDS } from "../support/client-upstream.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { vaultStore } from "../support/state.ts";
import { until } from "../support/wait.ts";

interface Scenario {
  name: string;
  /** Runs the CLI, one invocation after the other, in a fresh HOME and working directory. */
  drive(s: ClientSession, home: string, cwd: string): Promise<CliRun[]>;
  /** What each invocation prints: the fake's answer, which only arrives if streaming works. */
  replies: string[];
  /** [request, message (input item) index, card] for every card that goes in; nothing else does. */
  arrivals: Arrival[];
  /**
   * The `x-lorecards-injected` header of each chat request, in order, so also how many there are (a
   * tool result repeats its turn's cards).
   */
  injected: (string | null)[];
  /** Headers that name the client's session: the same on every request of it. */
  sessionHeaders: string[];
  /** The client's program, when it is not always installed (skipped without it, failed under CI). */
  needs?: string;
}

const SCENARIOS: Scenario[] = [
  {
    name: "Claude Code, print mode, three prompts with --continue",
    drive: async (s, home, cwd) => {
      const at = { home, cwd, baseUrl: s.url };
      return [
        await runClaude(["-p", "Tell me about Zorblax please."], at),
        await runClaude(["-p", "--continue", "And where is Vellmoor?"], at),
        await runClaude(["-p", "--continue", "Nice weather today, isn't it?"], at),
      ];
    },
    replies: ["Noted, turn 1.", "Noted, turn 2.", "Noted, turn 3."],
    // Message 0 holds Claude Code's <system-reminder> and the first prompt; message 1 is its own
    // `role: "system"` message; the second prompt is message 3.
    arrivals: [
      [1, 0, "Zorblax"],
      [2, 3, "Vellmoor"],
    ],
    injected: ["Zorblax", "Vellmoor", null],
    sessionHeaders: ["x-claude-code-session-id"],
  },
  {
    name: "Claude Code, one Read tool loop, then --continue",
    drive: async (s, home, cwd) => {
      fs.writeFileSync(path.join(cwd, "notes.txt"), "Zorblax left a note: meet at the east pier.\n");
      const at = { home, cwd, baseUrl: s.url };
      return [
        // Read inside the working directory needs no permission in print mode; say so anyway.
        await runClaude(
          [
            "-p",
            "Zorblax left a note. Please read notes.txt and tell me what it says.",
            "--allowedTools",
            "Read",
          ],
          at,
        ),
        await runClaude(
          ["-p", "--continue", "Thanks. Is Vellmoor mentioned anywhere?", "--allowedTools", "Read"],
          at,
        ),
      ];
    },
    replies: ["I read notes.txt; it says what you expected (turn 1).", "Noted, turn 2."],
    // #2 carries only the tool_result, which is not a turn. On --continue the new prompt is a user
    // message of its own (5), after the tool_result's (3) and the final answer (4). (The recorded
    // fixture merged them into 2 and 3 because its fake gave both answers one message id, and Claude
    // Code joins a transcript's assistant entries by message id; the fake here gives each its own.)
    arrivals: [
      [1, 0, "Zorblax"],
      [3, 5, "Vellmoor"],
    ],
    injected: ["Zorblax", "Zorblax", "Vellmoor"],
    sessionHeaders: ["x-claude-code-session-id"],
  },
  ...(
    [
      // #1 is the title request (the prompt in Claude Code's `<session>` wrapping, its own message 0),
      // #2 the prompt itself, #3 the tool loop's next request (a repeat), #4 the --continue.
      ["2.1.197 (pinned)", CLAUDE, ["Zorblax", "Zorblax", "Zorblax", "Vellmoor"]],
      // The newest release sends no title request in print mode.
      ["2.1.332 (the newest)", CLAUDE_NEWEST, ["Zorblax", "Zorblax", "Vellmoor"]],
    ] as const
  ).map(
    ([release, bin, injected]): Scenario => ({
      name: `Claude Code ${release} with its side requests on, one Read tool loop, then --continue`,
      drive: async (s, home, cwd) => {
        fs.writeFileSync(path.join(cwd, "notes.txt"), "Zorblax left a note: meet at the east pier.\n");
        const at = { home, cwd, baseUrl: s.url, sideRequests: true, bin };
        return [
          await runClaude(
            [
              "-p",
              "Zorblax left a note. Please read notes.txt and tell me what it says.",
              "--allowedTools",
              "Read",
            ],
            at,
          ),
          await runClaude(
            ["-p", "--continue", "Thanks. Is Vellmoor mentioned anywhere?", "--allowedTools", "Read"],
            at,
          ),
        ];
      },
      replies: ["I read notes.txt; it says what you expected (turn 1).", "Noted, turn 2."],
      arrivals: [
        [1, 0, "Zorblax"],
        [injected.length, 5, "Vellmoor"],
      ],
      injected: [...injected],
      sessionHeaders: ["x-claude-code-session-id"],
      needs: bin,
    }),
  ),
  {
    name: "Codex, codex exec then exec resume --last twice",
    drive: async (s, home, cwd) => {
      const at = { home, cwd, baseUrl: `${s.url}/v1` };
      return [
        await runCodex(["exec", "--skip-git-repo-check", "Tell me about Zorblax please."], at),
        await runCodex(["exec", "--skip-git-repo-check", "resume", "--last", "And where is Vellmoor?"], at),
        await runCodex(
          ["exec", "--skip-git-repo-check", "resume", "--last", "Nice weather today, isn't it?"],
          at,
        ),
      ];
    },
    // The fake counts user items, and Codex's <environment_context> message is one.
    replies: ["Noted, turn 2.", "Noted, turn 3.", "Noted, turn 4."],
    // input: two developer messages, the <environment_context> user message, then the prompts.
    arrivals: [
      [1, 3, "Zorblax"],
      [2, 5, "Vellmoor"],
    ],
    injected: ["Zorblax", "Vellmoor", null],
    sessionHeaders: ["session-id", "thread-id"],
  },
];

// A CLI run may take up to two minutes before it is killed (client-cli.ts); a session is a few runs.
const SESSION_MS = 420_000;
const FAST_MS = 10_000;

const installed = (sc: Scenario) =>
  sc.needs === undefined ||
  prerequisite(
    fs.existsSync(sc.needs),
    `real-clients.test.ts (${sc.name})`,
    `${sc.needs} is not installed (npm ci)`,
  );

describe.each(SCENARIOS.filter(installed))("$name", (scenario) => {
  let session: ClientSession | undefined;
  let runs: CliRun[] = [];
  let xs: Exchange[] = [];
  const s = (): ClientSession => {
    if (!session) throw new Error("the session did not start");
    return session;
  };

  beforeAll(async () => {
    session = await startClientSession(CLIENT_CARDS);
    runs = await scenario.drive(session, session.dir(), session.dir());
    xs = await session.exchanges();
  }, SESSION_MS);
  afterAll(async () => {
    await session?.close();
  });

  test(
    "every run exits 0 and prints the fake upstream's streamed answer",
    () => {
      expect(
        runs.map((r) => r.code),
        runs.map(describeRun).join("\n\n"),
      ).toEqual(runs.map(() => 0));
      expect(runs.map((r) => r.stdout.trim())).toEqual(scenario.replies);
    },
    FAST_MS,
  );

  test(
    "each chat request reaches the upstream once, streamed, and its answer comes back byte for byte",
    () => {
      expect(xs.length, s().gatewayStderr()).toBe(scenario.injected.length);
      expect(s().upstream.received.filter((r) => isChat(r.method, r.path)).length).toBe(xs.length);
      for (const [i, x] of xs.entries()) {
        const n = `#${i + 1}`;
        expect(x.upstream?.path, n).toBe(x.sent.path);
        expect(x.sent.body.stream, n).toBe(true);
        expect(x.status, n).toBe(200);
        expect(x.contentType, n).toBe("text/event-stream");
        expect(x.text, n).toBe(x.upstream?.answer ?? "");
      }
    },
    FAST_MS,
  );

  test(
    "cards arrive with the prompt that names them, and a request without a new name gets none",
    () => {
      expect(arrivals(xs, s().markers), s().gatewayStderr()).toEqual(scenario.arrivals);
    },
    FAST_MS,
  );

  test(
    "x-lorecards-injected names each request's cards",
    () => {
      expect(xs.map((x) => x.injected)).toEqual(scenario.injected);
    },
    FAST_MS,
  );

  test(
    "every injected block stays in its message, byte for byte, on every later request",
    () => {
      expect(movedBlocks(xs, s().markers)).toEqual([]);
    },
    FAST_MS,
  );

  test(
    "the upstream sees an append-only conversation wherever the client kept its own",
    () => {
      expect(appendOnlyBreaks(xs)).toEqual([]);
    },
    FAST_MS,
  );

  test(
    "no card goes in twice, and no request carries the same card twice",
    () => {
      expect(duplicateCards(xs, s().markers)).toEqual([]);
    },
    FAST_MS,
  );

  test(
    "apart from our blocks the upstream gets what the client sent: messages, cache hints, other fields",
    () => {
      expect(otherChanges(xs, s().markers)).toEqual([]);
    },
    FAST_MS,
  );

  test(
    "every header the client sent reaches the upstream as it was, and none is added, but for framing",
    () => {
      // fetch frames each hop itself: these name a connection, not the request.
      const framing = ["host", "content-length", "connection", "keep-alive", "transfer-encoding"];
      for (const [i, x] of xs.entries()) {
        const got = x.upstream?.headers ?? {};
        const lost = Object.entries(x.sent.headers).filter(([k, v]) => !framing.includes(k) && got[k] !== v);
        const added = Object.keys(got).filter((k) => !framing.includes(k) && !(k in x.sent.headers));
        expect({ lost, added }, `#${i + 1}`).toEqual({ lost: [], added: [] });
      }
    },
    FAST_MS,
  );

  test(
    "the client names one session on every request, which is how the gateway can follow it",
    () => {
      for (const name of scenario.sessionHeaders) {
        const ids = [...new Set(xs.map((x) => x.sent.headers[name]))];
        expect(ids.length, name).toBe(1);
        expect(ids[0], name).toBeString();
      }
    },
    FAST_MS,
  );

  test(
    "requests other than chat (Claude Code's HEAD / probe) pass through to the upstream untouched",
    () => {
      const { sent, upstream } = s().others();
      expect(upstream.map((r) => `${r.method} ${r.path} ${r.body}`)).toEqual(
        sent.map((r) => `${r.method} ${r.path} ${r.body}`),
      );
    },
    FAST_MS,
  );

  test(
    "stats: the conversation's turns add up to what its day counts, every answer of every turn billed",
    async () => {
      const store = await vaultStore(s().vault);
      try {
        const turnsNow = async () => {
          const conversations = await store.conversations(10);
          return (await Promise.all(conversations.map((c) => store.turns(c.id, 100)))).flat();
        };
        const billed = (turns: Awaited<ReturnType<typeof turnsNow>>) =>
          turns.reduce((n, t) => n + (t.requests ?? (t.usage ? 1 : 0)), 0);
        // Usage is read as each answer streams past, and stored just after it ends.
        await until(async () => billed(await turnsNow()) >= xs.length, "every answer's usage stored");
        const turns = await turnsNow();
        const [day] = await store.days("2000-01-01");
        const sum = (k: "uncached" | "output") => turns.reduce((n, t) => n + (t.usage?.[k] ?? 0), 0);
        expect(billed(turns)).toBe(xs.length);
        expect({ uncached: sum("uncached"), output: sum("output") }).toEqual({
          uncached: day?.uncached ?? -1,
          output: day?.output ?? -1,
        });
      } finally {
        await store.close();
      }
    },
    FAST_MS,
  );

  test(
    "tool results stay first in their user message, so a prompt's card goes in after them",
    () => {
      expect(misplacedToolResults(xs)).toEqual([]);
    },
    FAST_MS,
  );
});
