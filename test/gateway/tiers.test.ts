/**
 * Stable and volatile tiers, and placements, through replay (README "Stable and volatile",
 * "Placement"): always-on cards sit in one block that never moves, a card edited since it was sent goes
 * again once with the newest message, a card placed at a depth or before the system text is put there
 * the turn it first fires and stays there, and a restart changes none of it. Checked on what the
 * upstream received, for every protocol.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { countBreakpoints } from "../../src/gateway/_cache-steward.ts";
import { EDITED_NOTE } from "../../src/recall/stages/render.ts";
import type { Msg } from "../support/bodies.ts";
import { backdate } from "../support/card-vault.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { harness } from "../support/gateway.ts";
import { textOf } from "../support/protocols/_shared.ts";
import { PROTOCOLS, type Protocol, protocolNamed } from "../support/protocols.ts";
import { type CardFile, cardText, makeVault, removeDir } from "../support/vault.ts";

const PREMISE: CardFile = {
  dir: "things",
  key: "the Premise",
  keywords: ["premise"],
  body: "A harbour town where the tide keeps time.\n",
  extra: "context: always\n",
};
const TONE: CardFile = {
  dir: "things",
  key: "Tone",
  keywords: ["tone"],
  body: "Warm, dry, short sentences.\n",
  extra: "context: always\n",
};
const ALICE: CardFile = { dir: "people", key: "Alice", keywords: ["alice"], body: "The user's sister.\n" };
const ORACLE: CardFile = {
  dir: "things",
  key: "the Oracle",
  keywords: ["oracle"],
  body: "Speaks only in questions.\n",
  extra: "depth: 2\nrole: system\n",
};
const PROLOGUE: CardFile = {
  dir: "events",
  key: "the Prologue",
  keywords: ["prologue"],
  body: "It began with a storm.\n",
  extra: "position: before_char\n",
};
const SYSTEM = "You are a storyteller.";

let upstream: FakeUpstream;
beforeAll(() => {
  upstream = startFakeUpstream({ reply: (_body, i) => `Reply ${i}.` });
});
afterAll(async () => {
  await upstream.close();
});

/** A client: resends the whole history, without what the gateway added, and keeps the replies. */
function client(p: Protocol, vault: string, settings = {}) {
  let h = harness(vault, upstream, settings);
  const messages: Msg[] = [];
  const sent: string[] = [];
  return {
    sent,
    async say(line: string): Promise<Record<string, unknown>> {
      messages.push({ role: "user", content: line });
      const res = await h.send(p.path, p.build({ system: SYSTEM, messages }));
      expect(res.status).toBe(200);
      const raw = upstream.received[upstream.received.length - 1]!.body;
      sent.push(raw);
      messages.push({
        role: "assistant",
        content: p.replyText((await res.json()) as Record<string, unknown>),
      });
      return JSON.parse(raw) as Record<string, unknown>;
    },
    restart() {
      h.close();
      h = harness(vault, upstream, settings);
    },
    close: () => h.close(),
  };
}

function userTexts(p: Protocol, raw: string): string[] {
  return p.userMessages(raw).map((m) => textOf(m.content));
}

/** Every message of the body, as [role, text]. */
function listOf(p: Protocol, raw: string): [string, string][] {
  return p.messages(raw).map((m) => [String(m.role), textOf(m.content)]);
}

const KINDS: Record<string, string> = { people: "people", things: "thing", events: "event" };
/**
 * `next` is `previous` plus new messages, as the model reads them: the same system text and tools, and
 * every earlier message the same (cache hints and the string-or-parts shape are not content; the
 * Anthropic breakpoint steward moves a hint to the newest replayed block each turn).
 */
function expectContinues(p: Protocol, previous: string, next: string): void {
  const before = p.canonical(JSON.parse(previous));
  const after = p.canonical(JSON.parse(next));
  expect(after.system).toEqual(before.system);
  expect(after.tools).toEqual(before.tools);
  expect(after.items.slice(0, before.items.length)).toEqual(before.items);
}

const heading = (card: CardFile) => `### ${card.key} [${KINDS[card.dir]}]`;

describe.each(PROTOCOLS)("tiers, $name", (p) => {
  test("always-on cards sit at the start of the first user message, the same bytes on every request", async () => {
    const vault = makeVault([PREMISE, TONE, ALICE]);
    const c = client(p, vault);
    try {
      for (const line of ["hello there", "Alice is visiting", "we walk to the harbour", "Alice waves"]) {
        await c.say(line);
      }
      const firsts = c.sent.map((raw) => userTexts(p, raw)[0]!);
      expect(firsts[0]!).toContain(heading(PREMISE));
      expect(firsts[0]!).toContain(heading(TONE));
      expect(firsts[0]!.endsWith("hello there")).toBe(true);
      for (const first of firsts) expect(first).toBe(firsts[0]!);
      // Never sent again further down, and the named card went with its own message.
      for (const raw of c.sent) {
        const later = userTexts(p, raw).slice(1).join("\n");
        expect(later).not.toContain(heading(PREMISE));
      }
      expect(userTexts(p, c.sent[1]!)[1]!).toContain(heading(ALICE));
      for (let i = 1; i < c.sent.length; i++) {
        expectContinues(p, c.sent[i - 1]!, c.sent[i]!);
      }
    } finally {
      c.close();
      removeDir(vault);
    }
  });

  test("a card edited since it was sent goes once more with the newest message, marked, and then settles", async () => {
    const vault = makeVault([PREMISE, ALICE]);
    backdate(vault); // as if made long ago: seeing the edit must not depend on the vault being new
    const c = client(p, vault);
    try {
      await c.say("hello there");
      await c.say("a quiet morning");
      const edited = { ...PREMISE, body: "A harbour town where the tide keeps time, and the bells lie.\n" };
      // Saved as an editor saves (a temp file renamed over the card), which the gateway notices at once.
      const file = path.join(vault, "things", "the Premise.md");
      fs.writeFileSync(`${file}.tmp`, cardText(edited));
      fs.renameSync(`${file}.tmp`, file);
      const future = new Date(Date.now() + 5_000);
      fs.utimesSync(file, future, future);
      await c.say("the bells ring");
      await c.say("and again");
      const newest = (raw: string) => userTexts(p, raw).at(-1)!;
      expect(newest(c.sent[2]!)).toContain(`${heading(PREMISE)}\n${EDITED_NOTE}\nA harbour town`);
      expect(newest(c.sent[2]!)).toContain("the bells lie");
      expect(newest(c.sent[3]!)).not.toContain(heading(PREMISE));
      // The stable block kept its bytes: only the newest message says what changed.
      expect(userTexts(p, c.sent[3]!)[0]).toBe(userTexts(p, c.sent[0]!)[0]!);
      for (let i = 1; i < c.sent.length; i++) {
        expectContinues(p, c.sent[i - 1]!, c.sent[i]!);
      }
    } finally {
      c.close();
      removeDir(vault);
    }
  });

  test("an always-on card made after the first turn goes with a later newest message, not in front of the first", async () => {
    const vault = makeVault([ALICE]);
    const c = client(p, vault);
    try {
      await c.say("Alice is here");
      fs.writeFileSync(path.join(vault, PREMISE.dir, `${PREMISE.key}.md`), cardText(PREMISE));
      await c.say("hello again");
      const [first, second] = c.sent.map((raw) => userTexts(p, raw));
      expect(first![0]).toContain(heading(ALICE));
      expect(first![0]).not.toContain(heading(PREMISE));
      expect(second![0]).toBe(first![0]!);
      expect(second![1]).toContain(heading(PREMISE));
      expectContinues(p, c.sent[0]!, c.sent[1]!);
    } finally {
      c.close();
      removeDir(vault);
    }
  });

  test("the guide opens the stable block, before the always-on cards, and stays there", async () => {
    const vault = makeVault([PREMISE, ALICE]);
    fs.writeFileSync(path.join(vault, "guide.md"), "Keep notes of what lasts.\n");
    const c = client(p, vault);
    try {
      await c.say("hello there");
      fs.writeFileSync(path.join(vault, "guide.md"), "A new guide waits for the next conversation.\n");
      await c.say("Alice is visiting");
      const firsts = c.sent.map((raw) => userTexts(p, raw)[0]!);
      expect(firsts[0]!.indexOf("Keep notes of what lasts.")).toBeGreaterThan(-1);
      expect(firsts[0]!.indexOf("Keep notes of what lasts.")).toBeLessThan(
        firsts[0]!.indexOf(heading(PREMISE)),
      );
      expect(firsts[1]).toBe(firsts[0]!);
      expect(c.sent[1]).not.toContain("A new guide");
      expectContinues(p, c.sent[0]!, c.sent[1]!);
    } finally {
      c.close();
      removeDir(vault);
    }
  });

  test("a restart changes nothing: the same blocks come back and nothing is sent twice", async () => {
    const vault = makeVault([PREMISE, ALICE]);
    const c = client(p, vault);
    try {
      await c.say("Alice is here");
      await c.say("she sits down");
      c.restart();
      await c.say("Alice smiles");
      expectContinues(p, c.sent[1]!, c.sent[2]!);
      const newest = userTexts(p, c.sent[2]!).at(-1)!;
      expect(newest).toBe("Alice smiles");
    } finally {
      c.close();
      removeDir(vault);
    }
  });

  test("a card at depth 2 goes in as its own message two chat messages from the end, and stays there", async () => {
    const vault = makeVault([ALICE, ORACLE]);
    const c = client(p, vault);
    try {
      await c.say("hello");
      await c.say("we climb the hill");
      await c.say("the oracle waits at the top");
      await c.say("we ask our question");
      await c.say("and go home");
      const list = listOf(p, c.sent[2]!);
      const at = list.findIndex(([, text]) => text.includes(heading(ORACLE)));
      // Before the assistant's last reply and the newest user message.
      expect(list.slice(at + 1).map(([role]) => role)).toEqual(["assistant", "user"]);
      expect(list[at]![0]).toBe(p.placedRole);
      for (let i = 3; i < c.sent.length; i++) {
        expectContinues(p, c.sent[i - 1]!, c.sent[i]!);
        expect(listOf(p, c.sent[i]!)[at]).toEqual(list[at]!);
      }
    } finally {
      c.close();
      removeDir(vault);
    }
  });

  test("a card placed before the character goes in front of the system text, and stays there", async () => {
    const vault = makeVault([PROLOGUE]);
    const c = client(p, vault);
    try {
      await c.say("tell me the prologue");
      await c.say("and then?");
      for (const raw of c.sent) {
        const system = p.systemText(raw);
        expect(system).toContain(heading(PROLOGUE));
        expect(system.indexOf(heading(PROLOGUE))).toBeLessThan(system.indexOf(SYSTEM));
      }
      expectContinues(p, c.sent[0]!, c.sent[1]!);
    } finally {
      c.close();
      removeDir(vault);
    }
  });

  test("a card placed before the character that first fires on a later turn goes with the newest message: nothing sent before moves", async () => {
    const vault = makeVault([PROLOGUE]);
    const c = client(p, vault);
    try {
      await c.say("hello");
      await c.say("we sit by the fire");
      await c.say("tell me the prologue");
      await c.say("and then?");
      expect(p.systemText(c.sent[2]!)).not.toContain(heading(PROLOGUE));
      const users = userTexts(p, c.sent[2]!);
      expect(users.at(-1)).toContain(heading(PROLOGUE));
      expect(users.at(-1)!.indexOf(heading(PROLOGUE))).toBeLessThan(
        users.at(-1)!.indexOf("tell me the prologue"),
      );
      for (let i = 1; i < c.sent.length; i++) expectContinues(p, c.sent[i - 1]!, c.sent[i]!);
      // Replayed where it went, once.
      expect(c.sent[3]!.split(heading(PROLOGUE)).length - 1).toBe(1);
    } finally {
      c.close();
      removeDir(vault);
    }
  });

  test("a new conversation that opens as an earlier one did gets none of the cards the earlier one placed later", async () => {
    const vault = makeVault([PROLOGUE]);
    const first = client(p, vault);
    try {
      await first.say("hello");
      await first.say("tell me the prologue");
    } finally {
      first.close();
    }
    const second = client(p, vault);
    try {
      await second.say("hello");
      await second.say("what a nice day");
      for (const raw of second.sent) expect(raw).not.toContain(heading(PROLOGUE));
      expectContinues(p, second.sent[0]!, second.sent[1]!);
    } finally {
      second.close();
      removeDir(vault);
    }
  });
});

describe("Anthropic cache breakpoints", () => {
  const p = protocolNamed("anthropic");
  const mark = { type: "ephemeral" };
  /** A body shaped like Claude Code's: two marked system parts, and the newest prompt marked. */
  function cachingBody(lines: string[], replies: string[], systemMarks = 2) {
    const system = ["You are a storyteller.", "Be brief.", "Tools: none.", "Stay kind."].map((text, i) => ({
      type: "text",
      text,
      ...(i > 0 && i <= systemMarks && { cache_control: mark }),
    }));
    const messages = lines.flatMap((line, i) => {
      const last = i === lines.length - 1;
      const user = {
        role: "user",
        content: last ? [{ type: "text", text: line, cache_control: mark }] : line,
      };
      return i < replies.length ? [user, { role: "assistant", content: replies[i]! }] : [user];
    });
    return { model: "claude-test", max_tokens: 100, system, messages };
  }

  async function conversation(vault: string, systemMarks: number) {
    const h = harness(vault, upstream);
    const lines = ["hello there", "Alice is visiting", "she brings tea", "Alice laughs"];
    const sent: Record<string, unknown>[] = [];
    try {
      for (let n = 1; n <= lines.length; n++) {
        const body = cachingBody(lines.slice(0, n), ["ok.", "ok.", "ok."].slice(0, n - 1), systemMarks);
        expect((await h.send(p.path, body)).status).toBe(200);
        sent.push(JSON.parse(upstream.received[upstream.received.length - 1]!.body));
      }
    } finally {
      h.close();
    }
    return sent;
  }

  test("a client that caches gets a breakpoint after the stable block, never more than 4, its own kept", async () => {
    const vault = makeVault([PREMISE, ALICE]);
    try {
      const sent = await conversation(vault, 2);
      for (const body of sent) {
        expect(countBreakpoints(body as never)).toBeLessThanOrEqual(4);
        const system = body.system as Record<string, unknown>[];
        expect(system.map((part) => part.cache_control ?? null)).toEqual([null, mark, mark, null]);
        const messages = body.messages as { content: unknown }[];
        const newest = messages.at(-1)!.content as Record<string, unknown>[];
        expect(newest.at(-1)!.cache_control).toEqual(mark);
      }
      // From the second turn, the first user message (where the stable block sits) carries one.
      for (const body of sent.slice(1)) {
        const first = (body.messages as { content: Record<string, unknown>[] }[])[0]!.content;
        expect(first[0]!.text).toContain(heading(PREMISE));
        expect(first[0]!.cache_control).toEqual(mark);
      }
    } finally {
      removeDir(vault);
    }
  });

  test("a client that already uses 4 breakpoints gets none added", async () => {
    const vault = makeVault([PREMISE, ALICE]);
    try {
      const sent = await conversation(vault, 3);
      for (const body of sent) expect(countBreakpoints(body as never)).toBe(4);
      const first = (sent[2]!.messages as { content: unknown }[])[0]!.content;
      expect(typeof first).toBe("string");
    } finally {
      removeDir(vault);
    }
  });

  test("a client that sets no breakpoint gets none: caching stays its choice", async () => {
    const vault = makeVault([PREMISE, ALICE]);
    const c = client(p, vault);
    try {
      await c.say("hello there");
      await c.say("Alice is visiting");
      await c.say("Alice laughs");
      for (const raw of c.sent) expect(raw).not.toContain("cache_control");
    } finally {
      c.close();
      removeDir(vault);
    }
  });
});
