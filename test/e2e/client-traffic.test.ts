/**
 * Real client traffic through the compiled gateway. Claude Code, Codex CLI and the `openai` SDK were
 * recorded talking straight to a deterministic fake upstream (shared/fixtures/real/clients/); each
 * session is replayed here, request by request with its own path, headers and body, through
 * `lorecards gateway` in front of the same fake, and what the upstream receives is held to the
 * README's "What a replay test should assert": append-only, blocks that never move, no card twice,
 * cards exactly where expected, and nothing else changed. The suite is skipped when the fixtures are
 * not there.
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
import { loadSession, type Replay, replaySession } from "../support/client-replay.ts";
import { CLIENT_CARDS } from "../support/client-upstream.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";

const CLIENTS = path.join(REAL_FIXTURES, "clients");
const HAVE_FIXTURES = haveRealFixture("client-traffic: the recorded sessions", "clients/README.md");

/**
 * Requests that continue an earlier request's turn (a tool result): no new card goes in, and the
 * header repeats the cards of the turn, as it does for a retry of that turn.
 */
const SAME_TURN: Record<string, Record<number, string>> = {
  "claude-code-tool-loop": { 2: "Zorblax" },
};

/**
 * The README's expected placements with default flags: [request number, message (input item) index,
 * card]. A request not listed gets no new card.
 */
const EXPECTED: Record<string, Arrival[]> = {
  "claude-code-stream-json": [
    [1, 0, "Zorblax"],
    [2, 3, "Vellmoor"],
    [5, 9, "Lantern Harbour"],
  ],
  // #2 only carries a tool_result, which is not a turn; Vellmoor goes with the prompt appended after it.
  "claude-code-tool-loop": [
    [1, 0, "Zorblax"],
    [3, 3, "Vellmoor"],
  ],
  // Vellmoor is only in CLAUDE.md inside Claude Code's <system-reminder>, never in a prompt.
  "claude-code-claude-md": [[3, 5, "Zorblax"]],
  "codex-exec-resume": [
    [1, 3, "Zorblax"],
    [2, 5, "Vellmoor"],
  ],
  // Three independent calls, each a one-message conversation (the third streams).
  "openai-sdk-responses-shapes": [
    [1, 0, "Zorblax"],
    [2, 0, "Vellmoor"],
    [3, 0, "Lantern Harbour"],
  ],
  "openai-sdk-responses-history": [
    [1, 0, "Zorblax"],
    [2, 2, "Vellmoor"],
  ],
};

const SLOW = 60_000;

describe.skipIf(!HAVE_FIXTURES)("real client sessions replayed through the compiled gateway", () => {
  test("every recorded session has its expected placements in this test", () => {
    const sessions = fs.readdirSync(CLIENTS).filter((d) => fs.statSync(path.join(CLIENTS, d)).isDirectory());
    expect(sessions.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  describe.each(Object.keys(EXPECTED))("%s", (session) => {
    const expected = EXPECTED[session] ?? [];
    let replay: Replay | undefined;
    const run = (): Replay => {
      if (!replay) throw new Error(`${session} was not replayed`);
      return replay;
    };

    beforeAll(async () => {
      replay = await replaySession(loadSession(path.join(CLIENTS, session)), CLIENT_CARDS);
    }, 180_000);
    afterAll(async () => {
      await replay?.close();
    });

    test(
      "each request reaches the upstream once on its own path, and the answer reaches the client unchanged",
      () => {
        for (const [i, x] of run().exchanges.entries()) {
          const n = `#${i + 1}`;
          expect(x.upstream?.path, n).toBe(x.sent.path);
          expect(x.status, n).toBe(200);
          expect(x.status, n).toBe(x.upstream?.status ?? -1);
          expect(x.contentType, n).toBe(
            x.sent.body.stream === true ? "text/event-stream" : "application/json",
          );
          expect(x.text, n).toBe(x.upstream?.answer ?? "");
        }
      },
      SLOW,
    );

    test(
      "the upstream sees an append-only conversation wherever the client kept its own",
      () => {
        expect(appendOnlyBreaks(run().exchanges)).toEqual([]);
      },
      SLOW,
    );

    test(
      "every injected block stays in its message, byte for byte, while the client keeps that message",
      () => {
        expect(movedBlocks(run().exchanges, run().markers)).toEqual([]);
      },
      SLOW,
    );

    test(
      "no card goes in twice within the session, and no request carries the same card twice",
      () => {
        expect(duplicateCards(run().exchanges, run().markers)).toEqual([]);
      },
      SLOW,
    );

    test(
      "cards arrive in the message and on the request the README expects",
      () => {
        expect(arrivals(run().exchanges, run().markers)).toEqual(expected);
      },
      SLOW,
    );

    test(
      "x-lorecards-injected names the cards of the request's turn and is absent when the turn has none",
      () => {
        const headers = run().exchanges.map((x) => x.injected);
        const wanted = run().exchanges.map((_, i) => {
          const cards = expected.filter(([n]) => n === i + 1).map(([, , card]) => card);
          return cards.length > 0 ? cards.join(",") : (SAME_TURN[session]?.[i + 1] ?? null);
        });
        expect(headers).toEqual(wanted);
      },
      SLOW,
    );

    test(
      "apart from our blocks (and breakpoints on them, never past 4) the upstream gets what the client sent: messages, cache hints, other fields",
      () => {
        expect(otherChanges(run().exchanges, run().markers)).toEqual([]);
      },
      SLOW,
    );

    test(
      "every header the client sent reaches the upstream as it was",
      () => {
        for (const [i, x] of run().exchanges.entries()) {
          const got = x.upstream?.headers ?? {};
          const lost = Object.entries(x.sent.headers).filter(([name, value]) => got[name] !== value);
          expect(lost, `#${i + 1}`).toEqual([]);
        }
      },
      SLOW,
    );

    test(
      "tool results stay first in their user message, as the Messages API requires",
      () => {
        expect(misplacedToolResults(run().exchanges)).toEqual([]);
      },
      SLOW,
    );
  });
});
