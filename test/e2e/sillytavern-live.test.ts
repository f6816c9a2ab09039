/**
 * SillyTavern 1.12.6 itself (../shared/judges/sillytavern/) in front of the compiled gateway, live: its
 * server and web page in headless Chromium, driven as a person would. Its API panel is pointed at a
 * recorder in front of `lorecards gateway`, in front of the client fake upstream (all on 127.0.0.1):
 * Chat Completion with a custom OpenAI-compatible endpoint, or Text Completion (KoboldCpp) with the
 * ChatML instruct template. The bundled Seraphina opens her chat; a World Info book is imported and
 * switched on (an entry at depth 2, inside the history, on "harbour"); an Author's Note is set with
 * `/note`. Then six messages, a swipe, Regenerate and Continue.
 *
 * SillyTavern rebuilds its prompt on every turn: the World Info her greeting fired on turn 1
 * (Seraphina's own book, Eldoria) is gone on turn 2, the harbour entry comes and goes inside the
 * history, the Author's Note is placed anew each time. The gateway finds a message (a template's turn)
 * by what it is: every block stays on the message it went into, byte for byte, and every message
 * SillyTavern sends again reaches the upstream as it did before.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { REPO } from "../support/binary.ts";
import { blocksIn } from "../support/canonical.ts";
import { cardsIn, upstreamBody } from "../support/client-checks.ts";
import type { Exchange } from "../support/client-replay.ts";
import { type ClientSession, isChat, startClientSession } from "../support/client-session.ts";
import {
  blocksThatLeftTheirMessage,
  chatmlTurns,
  keptMessagesChanged,
  messagesOf,
  type Reader,
  sameMessages,
  textOf,
} from "../support/message-checks.ts";
import { haveSillyTavern, type SillyTavern, startSillyTavern } from "../support/sillytavern.ts";
import {
  activateWorldInfo,
  chooseCharacter,
  connectChatCompletion,
  connectTextCompletion,
  openTavern,
  type TavernPage,
  useInstructTemplate,
} from "../support/sillytavern-ui.ts";
import { vaultStore } from "../support/state.ts";
import { TAVERN_CARDS, TAVERN_GUIDE } from "../support/tavern-vault.ts";
import { until } from "../support/wait.ts";

const HAVE = haveSillyTavern("sillytavern-live.test.ts");
const BOOK = path.resolve(import.meta.dir, "../fixtures/sillytavern/harbour-bells.json");
const TURNS = [
  "Have you ever met Zorbelle?",
  "Tell me about Quillhaven, please.",
  "Is there a harbour in Quillhaven?",
  "And the brass astrolabe?",
  "Is the forest near the harbour?",
  "One more: flimwhistle.",
];
const SESSION_MS = 600_000;
const FAST_MS = 10_000;

interface Mode {
  name: string;
  /** Sets SillyTavern's API to the endpoint (the recorder's origin) in its own panels. */
  connect(t: TavernPage, origin: string): Promise<void>;
  /** The messages of a body, as the checks read them. */
  read: Reader;
}

/**
 * docs/GATEWAY.md's Text Completion recipe for SillyTavern, as the page says it: the API type to choose
 * and the first instruct template it names. The test follows the page, so the page stays true.
 */
function textCompletionRecipe(): { type: string; template: string } {
  const page = fs.readFileSync(path.join(REPO, "docs/GATEWAY.md"), "utf8");
  const at = page.indexOf("In SillyTavern (tested with");
  const recipe = page.slice(at, page.indexOf("\n\n", at)).replace(/\n/g, " ");
  const type = /choose \*\*Text Completion\*\*, type \*\*(\w+)\*\*/.exec(recipe)?.[1];
  const template = /a template the gateway reads \(([^,]+),/.exec(recipe)?.[1];
  if (at < 0 || !type || !template)
    throw new Error("docs/GATEWAY.md: the SillyTavern Text Completion recipe is gone");
  return { type, template };
}
const RECIPE = textCompletionRecipe();

const MODES: Mode[] = [
  {
    name: "Chat Completion, a custom OpenAI-compatible endpoint",
    connect: (t, origin) => connectChatCompletion(t, `${origin}/v1`, "gpt-fake"),
    read: messagesOf,
  },
  {
    name: `Text Completion (${RECIPE.type}), the ${RECIPE.template} instruct template, as docs/GATEWAY.md says`,
    connect: async (t, origin) => {
      await connectTextCompletion(t, RECIPE.type.toLowerCase(), origin);
      await useInstructTemplate(t, RECIPE.template);
    },
    read: chatmlTurns,
  },
];

describe.skipIf(!HAVE).each(MODES)("SillyTavern 1.12.6 through the gateway, live: $name", (mode) => {
  let st: SillyTavern | undefined;
  let session: ClientSession | undefined;
  let tavern: TavernPage | undefined;
  let xs: Exchange[] = [];
  let shown: string[] = [];
  const s = (): ClientSession => {
    if (!session) throw new Error("the session did not start");
    return session;
  };
  /** Requests 1–6 are the turns; 7 the swipe, 8 Regenerate, 9 Continue. */
  const x = (n: number): Exchange => xs[n - 1]!;
  const sent = (n: number) => mode.read(x(n).sent.body);

  beforeAll(async () => {
    st = await startSillyTavern();
    session = await startClientSession(TAVERN_CARDS, { "guide.md": TAVERN_GUIDE });
    const chats = () => s().recorder.received.filter((r) => isChat(r.method, r.path)).length;
    tavern = await openTavern(st.url, chats);
    await mode.connect(tavern, session.url);
    await chooseCharacter(tavern, "Seraphina");
    await activateWorldInfo(tavern, BOOK, "harbour-bells");
    await tavern.command("/note Remember the tides.");
    for (const text of TURNS) await tavern.send(text);
    await tavern.swipe();
    await tavern.regenerate();
    await tavern.continueReply();
    shown = await tavern.messages();
    xs = await session.exchanges();
  }, SESSION_MS);
  afterAll(async () => {
    await tavern?.close();
    await session?.close();
    await st?.stop();
  });

  test(
    "every generation reaches the upstream once, and its answer comes back to SillyTavern byte for byte",
    () => {
      expect(xs.length, s().gatewayStderr()).toBe(TURNS.length + 3);
      for (const [i, e] of xs.entries()) {
        expect(e.status, `#${i + 1}`).toBe(200);
        expect(e.text, `#${i + 1}`).toBe(e.upstream?.answer ?? "");
      }
      // The page shows each reply; Continue added its answer to the last one.
      expect(shown.slice(1, -1)).toEqual(
        TURNS.flatMap((t, i) => (i < TURNS.length - 1 ? [t, `Noted, turn ${i + 1}.`] : [t])),
      );
      expect(shown.at(-1)!.split("Noted, turn 6.").length - 1).toBe(2);
    },
    FAST_MS,
  );

  test(
    "SillyTavern rebuilt its prompt: a World Info message gone on turn 2, the book's entry inside the history, the Author's Note moved",
    () => {
      const greeting = (n: number) => sent(n).findIndex((m) => m.role === "assistant");
      const kept = sameMessages(sent(1), sent(2));
      const gone = [...Array(greeting(1)).keys()].filter((i) => !kept.includes(i));
      expect(gone.length).toBeGreaterThan(0);
      const bells = (n: number) => sent(n).findIndex((m) => textOf(m).startsWith("The harbour bells"));
      expect([1, 2, 3, 4, 5, 6].map((n) => bells(n) !== -1)).toEqual([
        false,
        false,
        true,
        false,
        true,
        false,
      ]);
      const note = (n: number) => sent(n).findIndex((m) => textOf(m).startsWith("Remember the tides."));
      expect(new Set([1, 2, 3, 4, 5, 6].map(note)).size).toBeGreaterThan(2);
    },
    FAST_MS,
  );

  test(
    "every block stays on the message it went into, byte for byte, on every later request, wherever the message sits",
    () => {
      expect(blocksIn(upstreamBody(x(1)), s().markers).flatMap(cardsIn)).toEqual(["Zorbelle"]);
      expect(blocksThatLeftTheirMessage(xs, s().markers.open, mode.read)).toEqual([]);
    },
    FAST_MS,
  );

  test(
    "every message SillyTavern sends again reaches the upstream as it did the request before",
    () => {
      expect(keptMessagesChanged(xs, mode.read)).toEqual([]);
    },
    FAST_MS,
  );

  test(
    "each card goes in once, on the turn that names it, and the guide is in every request",
    () => {
      expect(xs.map((e) => e.injected)).toEqual([
        "guide.md,Zorbelle",
        "Quillhaven",
        null,
        "the brass astrolabe",
        null,
        ...Array(4).fill("flimwhistle"),
      ]);
      for (const [i, e] of xs.entries()) {
        const cards = blocksIn(upstreamBody(e), s().markers).flatMap(cardsIn);
        expect(new Set(cards).size, `#${i + 1}: ${cards}`).toBe(cards.length);
        expect(JSON.stringify(upstreamBody(e)), `#${i + 1}`).toContain(TAVERN_GUIDE.trim());
      }
    },
    FAST_MS,
  );

  test(
    "a swipe and a regeneration send the upstream the very bytes of the turn they redo; Continue keeps every message of it",
    () => {
      for (const n of [7, 8]) {
        expect(x(n).sent.body, `#${n}`).toEqual(x(6).sent.body);
        expect(x(n).upstream?.body === x(6).upstream?.body, `#${n}`).toBe(true);
      }
      // Continue: the chat again with the reply so far after the last prompt.
      const lastPrompt = sent(9).findLastIndex((m) => m.role === "user");
      expect(
        sent(9)
          .slice(lastPrompt)
          .some((m) => textOf(m).includes("Noted, turn 6.")),
      ).toBe(true);
      expect(keptMessagesChanged([x(6), x(9)], mode.read)).toEqual([]);
    },
    FAST_MS,
  );

  test("stats: one conversation of six turns, holding what the upstream billed for all nine answers", async () => {
    // What the upstream billed: the usage in each answer (its last chunk, streamed).
    const billed = xs.map((e) => {
      const last = (name: string) =>
        Number([...(e.upstream?.answer ?? "").matchAll(new RegExp(`"${name}":(\\d+)`, "g"))].at(-1)?.[1]);
      return { prompt: last("prompt_tokens"), output: last("completion_tokens") };
    });
    const want = {
      turns: TURNS.length,
      input: billed.reduce((n, b) => n + b.prompt, 0),
      output: billed.reduce((n, b) => n + b.output, 0),
      requests: xs.length,
    };
    const store = await vaultStore(s().vault);
    try {
      const stored = async () =>
        Promise.all(
          (await store.conversations(20)).map(async (c) => {
            const turns = await store.turns(c.id, 100);
            return {
              turns: turns.length,
              input: turns.reduce((n, t) => n + (t.usage ? t.usage.uncached + t.usage.cacheRead : 0), 0),
              output: turns.reduce((n, t) => n + (t.usage?.output ?? 0), 0),
              requests: turns.reduce((n, t) => n + (t.requests ?? (t.usage ? 1 : 0)), 0),
            };
          }),
        );
      await until(async () => Bun.deepEquals(await stored(), [want]), "every answer's usage stored");
      expect(await stored()).toEqual([want]);
    } finally {
      await store.close();
    }
  }, 90_000);
});
