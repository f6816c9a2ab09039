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
import { type Exchange, loadSession, type Replay, replaySession } from "../support/client-replay.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";
import { canonicalContent } from "../support/protocols/_shared.ts";
import type { CardFile } from "../support/vault.ts";

const DIR = path.join(REAL_FIXTURES, "clients-sillytavern");
const HAVE = haveRealFixture("sillytavern-traffic: the recorded chats", "clients-sillytavern/README.md");

/** The vault the chats were recorded against (its README): cards named by their keywords. */
const CARDS: CardFile[] = [
  { dir: "people", key: "Zorbelle", keywords: ["Zorbelle"], body: "## who\nA healer of the glade.\n" },
  { dir: "places", key: "Quillhaven", keywords: ["Quillhaven"], body: "## where\nA town of scribes.\n" },
  {
    dir: "things",
    key: "the brass astrolabe",
    keywords: ["brass astrolabe"],
    body: "## what\nIt maps stars.\n",
  },
  {
    dir: "slang",
    key: "flimwhistle",
    keywords: ["flimwhistle"],
    body: "## means\nNonsense, kindly meant.\n",
  },
];
const GUIDE = "Keep to the canon of the glade.\n";

type Message = { role: string; content: unknown };
const messagesOf = (body: Record<string, unknown> | null): Message[] => (body?.messages ?? []) as Message[];
const textOf = (m: Message | undefined): string =>
  typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? "");
/** The same message as the client sent it: role and canonical content. */
const sameMessage = (a: Message, b: Message) =>
  a.role === b.role && Bun.deepEquals(canonicalContent(a.content), canonicalContent(b.content));

/**
 * For each block upstream, the message the client sent it with; on every later request that still
 * has that message (wherever it sits), the block must be in front of it, byte for byte.
 */
function blocksThatLeftTheirMessage(xs: readonly Exchange[], open: string): string[] {
  const problems: string[] = [];
  xs.forEach((x, i) => {
    const sent = messagesOf(x.sent.body);
    const up = messagesOf(upstreamBody(x));
    // The gateway inserts no message with default flags here, so upstream message j is sent message j.
    up.forEach((m, j) => {
      const text = textOf(m);
      if (!text.includes(open)) return;
      const own = sent[j]!;
      const block = text.slice(0, text.length - textOf(own).length);
      for (let k = i + 1; k < xs.length; k++) {
        const later = messagesOf(xs[k]!.sent.body);
        const at = later.findIndex((l) => sameMessage(l, own));
        if (at === -1) continue;
        const there = textOf(messagesOf(upstreamBody(xs[k]!))[at]);
        if (!there.startsWith(block))
          problems.push(
            `the block of ${cardsIn(block).join(", ")} on message ${j} at #${i + 1} is not on it (now ${at}) at #${k + 1}`,
          );
      }
    });
  });
  return problems;
}

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
