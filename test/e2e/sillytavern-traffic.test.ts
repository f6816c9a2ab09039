/**
 * SillyTavern 1.12.6's own traffic (shared/fixtures/real/clients-sillytavern/, its README) replayed
 * through the compiled gateway. SillyTavern rebuilds its prompt every turn: from turn 2 on it drops the
 * example-dialogue system message, so every later message sits one place earlier, places its
 * Author's Note anew each turn, and its Continue button resends the chat with a system message after
 * it. The blocks of a message must follow the message wherever it sits, byte for byte; no card goes
 * in twice; the guide, opened on turn 1, stays in every request.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { blocksIn } from "../support/canonical.ts";
import { cardsIn, upstreamBody } from "../support/client-checks.ts";
import { loadSession, type Replay, replaySession } from "../support/client-replay.ts";
import { blocksThatLeftTheirMessage, messagesOf, textOf } from "../support/message-checks.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";
import { TAVERN_CARDS, TAVERN_GUIDE } from "../support/tavern-vault.ts";

const DIR = path.join(REAL_FIXTURES, "clients-sillytavern");
const HAVE = haveRealFixture("sillytavern-traffic: the recorded chats", "clients-sillytavern/README.md");

const CARDS = TAVERN_CARDS;
const GUIDE = TAVERN_GUIDE;

describe.skipIf(!HAVE).each(["sillytavern-authors-note", "sillytavern-continue"])("%s", (session) => {
  let replay: Replay | undefined;
  const run = (): Replay => {
    if (!replay) throw new Error(`${session} was not replayed`);
    return replay;
  };
  beforeAll(async () => {
    replay = await replaySession(loadSession(path.join(DIR, session)), CARDS, { "guide.md": GUIDE });
  }, 180_000);
  afterAll(async () => {
    await replay?.close();
  });

  test("every block stays in front of its message, byte for byte, as the messages before it come and go", () => {
    expect(blocksThatLeftTheirMessage(run().exchanges, run().markers.open)).toEqual([]);
  });

  test("no card goes in twice: each request carries every card of the one before, once, and only new ones it names", () => {
    const { exchanges, markers } = run();
    const cards = exchanges.map((x) => blocksIn(upstreamBody(x), markers).flatMap(cardsIn));
    const named = exchanges.map((x) => textOf(messagesOf(x.sent.body).at(-1)));
    cards.forEach((now, i) => {
      expect(new Set(now).size, `#${i + 1} carries a card twice: ${now}`).toBe(now.length);
      const before = cards[i - 1] ?? [];
      for (const card of before) expect(now, `#${i + 1} lost ${card}`).toContain(card);
      for (const card of now.filter((c) => !before.includes(c))) {
        const keyword = CARDS.find((c) => c.key === card)!.keywords[0]!;
        expect(
          named.slice(0, i + 1).some((t) => t.includes(keyword)),
          `${card} at #${i + 1}`,
        ).toBe(true);
      }
    });
    expect([...new Set(cards.flat())].sort()).toEqual(
      CARDS.filter((c) => named.some((t) => t.includes(c.keywords[0]!)))
        .map((c) => c.key)
        .sort(),
    );
  });

  test("the guide, opened on the first turn, is in every request", () => {
    for (const [i, x] of run().exchanges.entries())
      expect(JSON.stringify(upstreamBody(x)), `#${i + 1}`).toContain("Keep to the canon of the glade.");
  });

  test("each answer reaches SillyTavern as the upstream sent it", () => {
    for (const x of run().exchanges) {
      expect(x.status).toBe(200);
      expect(x.text).toBe(x.upstream?.answer ?? "");
    }
  });
});
