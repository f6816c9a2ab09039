/**
 * Traffic recorded from Gemini CLI 0.61.0, Continue CLI 1.5.47 and Codex 0.171.0
 * with an AGENTS.md (test/fixtures/clients/, its README) replayed through the compiled gateway in front
 * of the client fake upstream: each card arrives with the prompt that names it, never from a client's
 * wrapper (Codex's AGENTS.md names Vellmoor, Gemini CLI's context message names the
 * folder), is never sent twice, and every block stays in front of its message on the next request.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { REPO } from "../support/binary.ts";
import { blocksIn } from "../support/canonical.ts";
import { cardsIn, upstreamBody } from "../support/client-checks.ts";
import { loadSession, type Replay, replaySession } from "../support/client-replay.ts";
import { CLIENT_CARDS } from "../support/client-upstream.ts";

const DIR = path.join(REPO, "test", "fixtures", "clients");

/** Per session: the cards each request carries (the first turn's stay on the second). */
const EXPECTED: Record<string, string[][]> = {
  "gemini-cli-resume": [["Zorblax"], ["Zorblax", "Vellmoor"]],
  "continue-cli-resume": [["Zorblax"], ["Zorblax", "Vellmoor"]],
  // AGENTS.md says "Always mention Vellmoor": it fires nothing.
  "codex-agents-md": [["Zorblax"], ["Zorblax"]],
};

type Item = Record<string, unknown>;
const items = (body: Record<string, unknown> | null): Item[] =>
  ((body?.messages ?? body?.input ?? body?.contents ?? []) as Item[]).filter((m) => m.role !== undefined);

describe.each(Object.keys(EXPECTED))("%s", (session) => {
  let replay: Replay | undefined;
  const run = (): Replay => {
    if (!replay) throw new Error(`${session} was not replayed`);
    return replay;
  };
  beforeAll(async () => {
    replay = await replaySession(loadSession(path.join(DIR, session)), CLIENT_CARDS);
  }, 120_000);
  afterAll(async () => {
    await replay?.close();
  });

  test("each request carries the cards its prompts named, once, and none from the client's wrappers", () => {
    const got = run().exchanges.map((x) => blocksIn(upstreamBody(x), run().markers).flatMap(cardsIn));
    expect(got, run().stderr()).toEqual(EXPECTED[session]!);
  });

  test("the first request's messages, blocks included, reach the upstream again unchanged on the second", () => {
    const [one, two] = run().exchanges.map((x) => items(upstreamBody(x)));
    const sentOne = items(run().exchanges[0]!.sent.body);
    const sentTwo = items(run().exchanges[1]!.sent.body);
    sentOne.forEach((m, i) => {
      if (Bun.deepEquals(m, sentTwo[i])) expect(two![i], `message ${i}`).toEqual(one![i]!);
      else expect(JSON.stringify(two![i])).toContain(blocksIn(one![i], run().markers)[0] ?? "");
    });
  });

  test("each answer reaches the client as the upstream sent it", () => {
    for (const x of run().exchanges) {
      expect(x.status).toBe(200);
      expect(x.text).toBe(x.upstream?.answer ?? "");
    }
  });
});

/**
 * Qwen Code's `-c` resends its first message without the date reminder it carried the first time: the
 * person's words are unchanged, so it is the same conversation (its fingerprint reads what the person
 * typed) and the same message, whose block goes back in front of its first text.
 */
describe("qwen-code-continue", () => {
  let replay: Replay | undefined;
  const run = (): Replay => {
    if (!replay) throw new Error("qwen-code-continue was not replayed");
    return replay;
  };
  beforeAll(async () => {
    replay = await replaySession(loadSession(path.join(DIR, "qwen-code-continue")), CLIENT_CARDS);
  }, 120_000);
  afterAll(async () => {
    await replay?.close();
  });

  test("the client rewrote its first message: only the dropped reminder differs", () => {
    const [one, two] = run().exchanges.map((x) => items(x.sent.body)[1]!.content as Item[]);
    expect(two).toEqual(one!.filter((part) => two!.some((kept) => Bun.deepEquals(kept, part))));
    expect(two!.length).toBe(one!.length - 1);
  });

  test("the second request continues the conversation: Zorblax is not sent again, Vellmoor comes with its prompt", () => {
    const got = run().exchanges.map((x) => blocksIn(upstreamBody(x), run().markers).flatMap(cardsIn));
    expect(got, run().stderr()).toEqual([["Zorblax"], ["Zorblax", "Vellmoor"]]);
    expect(run().exchanges.map((x) => x.injected)).toEqual(["Zorblax", "Vellmoor"]);
  });

  test("turn 1's block is back in front of the first message's first text, byte for byte", () => {
    const [one, two] = run().exchanges.map((x) => items(upstreamBody(x))[1]!.content as Item[]);
    const block = blocksIn(one, run().markers)[0]!;
    expect(String(one![0]!.text).startsWith(block)).toBe(true);
    expect(two![0]).toEqual(one![0]!);
  });
});

/**
 * Codex 0.171.0 with an AGENTS.md and a guide in the vault: its first user message holds only AGENTS.md
 * and `<environment_context>` (the client talking, not a turn), so the guide opens the stable block in
 * the person's first prompt, and stays there on `exec resume`; AGENTS.md ("Always mention Vellmoor")
 * fires nothing.
 */
describe("codex-agents-md with a guide", () => {
  const GUIDE = "Keep notes of what lasts; the guide speaks.\n";
  let replay: Replay | undefined;
  const run = (): Replay => {
    if (!replay) throw new Error("codex-agents-md was not replayed");
    return replay;
  };
  beforeAll(async () => {
    replay = await replaySession(loadSession(path.join(DIR, "codex-agents-md")), CLIENT_CARDS, {
      "guide.md": GUIDE,
    });
  }, 120_000);
  afterAll(async () => {
    await replay?.close();
  });

  test("the guide arrives in the person's first prompt, not in the AGENTS.md message, once per request", () => {
    for (const x of run().exchanges) {
      const input = items(upstreamBody(x));
      const holding = input.flatMap((m, i) => (JSON.stringify(m).includes("the guide speaks") ? [i] : []));
      expect(holding).toEqual([3]);
      expect(JSON.stringify(input[3]).split("the guide speaks").length - 1).toBe(1);
      expect(JSON.stringify(input[2])).toContain("# AGENTS.md instructions for");
      expect(JSON.stringify(input[2])).not.toContain(run().markers.open);
    }
    expect(run().exchanges[0]!.injected).toBe("guide.md,Zorblax");
  });

  test("AGENTS.md fires nothing: Vellmoor is never sent", () => {
    for (const x of run().exchanges) expect(x.upstream?.body ?? "").not.toContain("### Vellmoor");
  });
});
