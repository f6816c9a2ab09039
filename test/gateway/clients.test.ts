/**
 * What real clients do that the gateway must take in its stride, for every adapter: coding clients
 * wrap the person's words in their own text, name their sessions in headers, loop through tools, and
 * (with the Claude Code hook on as well) already carry a block of ours.
 */

import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { CLIENT_SESSIONS } from "../../src/clients.ts";
import { wrapBlock } from "../../src/inject/index.ts";
import type { Msg } from "../support/bodies.ts";
import { gatewaySuite } from "../support/gateway.ts";
import { PROTOCOLS } from "../support/protocols.ts";
import { recentHitsOf, vaultStore } from "../support/state.ts";
import { until } from "../support/wait.ts";

const suite = gatewaySuite();
const setup = suite.setup;

const u = (content: string): Msg => ({ role: "user", content });
const a = (content: string): Msg => ({ role: "assistant", content });
const injected = (res: Response) => res.headers.get("x-lorecards-injected");

const ALICE_BLOCK = "A memory surfaces:\n\n### Alice [people]\n## who\nThe user's sister; lives in Lyon.\n";

describe.each(PROTOCOLS)("$name adapter with real clients' habits", (p) => {
  test.each([
    [
      "Claude Code's <system-reminder>",
      "<system-reminder>\nThis repo is about Alice.\n</system-reminder>\n\n",
    ],
    [
      "Codex's <environment_context>",
      "<environment_context>\n  <cwd>/home/alice</cwd>\n</environment_context>\n",
    ],
  ])("a keyword only in %s fires nothing", async (_client, wrapper) => {
    const { h } = await setup();
    const res = await h.send(p.path, p.build({ messages: [u(`${wrapper}What is 2+2?`)] }));
    expect(injected(res)).toBeNull();
  });

  test("the hit log records what the person typed, not the client's wrapper", async () => {
    const { h, vault } = await setup();
    const wrapped =
      "<system-reminder>\nCLAUDE.md: Alice owns this repo.\n</system-reminder>\n\nthe blue notebook?";
    const res = await h.send(p.path, p.build({ messages: [u(wrapped)] }));
    expect(injected(res)).toBe("the blue notebook");
    expect((await recentHitsOf(vault, 5))[0]).toMatchObject({ message: "the blue notebook?" });
  });

  test.each([
    ["in the system prompt", (block: string) => ({ system: block, messages: [u("how is alice?")] })],
    ["in the user message", (block: string) => ({ messages: [u(`${block}\n\nhow is alice?`)] })],
  ])("a card the hook already put %s is not injected again", async (_where, build) => {
    const { h, markers } = await setup();
    const res = await h.send(p.path, p.build(build(wrapBlock(ALICE_BLOCK, markers))));
    expect(injected(res)).toBeNull();
  });

  test("a hook block holding other cards does not keep a new card out", async () => {
    const { h, markers } = await setup();
    const other = wrapBlock("A memory surfaces:\n\n### the blue notebook [thing]\nA notebook.\n", markers);
    const res = await h.send(p.path, p.build({ system: other, messages: [u("how is alice?")] }));
    expect(injected(res)).toBe("Alice");
  });

  const toolTurn = p.toolTurn;
  if (toolTurn)
    test("--scan-depth counts turns of text: a tool loop does not push the person's words out", async () => {
      const { h } = await setup({ window: 1 });
      const body = toolTurn({ messages: [u("what does alice say?")] }, "a tool result", [
        a("She is fine."),
        u("and now?"),
      ]);
      expect(injected(await h.send(p.path, body))).toBe("Alice");
    });

  test.each([...p.alsoAt])(
    "a client calling %s (a base URL that already ends in /v1, another version) is injected too",
    async (path) => {
      const { h } = await setup();
      const res = await h.send(path, p.build({ messages: [u("how is alice?")] }));
      expect(injected(res)).toBe("Alice");
    },
  );

  test("a client's session header names the conversation: the same one continues it, another starts anew", async () => {
    const { h } = await setup();
    const session = (id: string) => ({ "x-claude-code-session-id": id });
    await h.send(p.path, p.build({ system: "v1", messages: [u("the cafe")] }), session("s1"));
    const next = p.build({ system: "v2", messages: [u("the cafe"), a("ok"), u("that cafe")] });
    expect(injected(await h.send(p.path, next, session("s1")))).toBeNull();
    expect(injected(await h.send(p.path, next, session("s2")))).toBe("the corner cafe");
  });
  test.each(CLIENT_SESSIONS.map((row) => [row.header, row.client] as const))(
    "two sessions that open with the same prompt stay two by %s (%s): interleaved, each replays its own blocks and is a conversation of its own",
    async (header) => {
      const { h, vault } = await setup();
      const sent = () => p.messages(suite.upstream().received.at(-1)!.body);
      const send = async (id: string, messages: Msg[]) =>
        injected(await h.send(p.path, p.build({ messages }), { [header]: `${id}-0123456789` }));
      const one = [u("the cafe")];
      const two = [u("the cafe")];
      expect(await send("one", one)).toBe("the corner cafe");
      const one1 = sent();
      expect(await send("two", two)).toBe("the corner cafe");
      const two1 = sent();
      one.push(a("ok, one"), u("and alice?"));
      expect(await send("one", one)).toBe("Alice");
      const one2 = sent();
      expect(one2.slice(0, one1.length)).toEqual(one1);
      two.push(a("ok, two"), u("and the blue notebook?"));
      expect(await send("two", two)).toBe("the blue notebook");
      expect(sent().slice(0, two1.length)).toEqual(two1);
      // Back to the first session: its blocks are where they went, and nothing is sent again.
      one.push(a("ok"), u("the cafe and alice, once more"));
      expect(await send("one", one)).toBeNull();
      expect(sent().slice(0, one2.length)).toEqual(one2);
      // What stats shows: two conversations, of three turns and of two, once every answer's usage is in.
      const store = await vaultStore(vault);
      try {
        const stored = async () =>
          Promise.all((await store.conversations(10)).map((c) => store.turns(c.id, 10)));
        const answers = (all: Awaited<ReturnType<typeof stored>>) =>
          all.flat().reduce((n, t) => n + (t.requests ?? 0), 0);
        await until(async () => answers(await stored()) === 5, "every answer's usage stored");
        expect((await stored()).map((turns) => turns.length).sort()).toEqual([2, 3]);
      } finally {
        await store.close();
      }
    },
  );

  test.each([
    [
      "in the system prompt",
      (wi: string) => ({ system: `You are Seraphina.\n${wi}`, messages: [u("how is alice?")] }),
    ],
    ["in an earlier message", (wi: string) => ({ messages: [u(wi), a("ok"), u("how is alice?")] })],
  ])(
    "a card whose text is already %s (the same book in World Info) is not sent twice, and said once",
    async (_where, build) => {
      const { h } = await setup();
      // SillyTavern inserts a World Info entry's content as it is: here, the card's body.
      const wi = "## who\nThe user's sister; lives in Lyon.";
      expect(injected(await h.send(p.path, p.build(build(wi))))).toBeNull();
      expect(injected(await h.send(p.path, p.build(build(wi))))).toBeNull();
      const said = h.warnings.filter((l) => l.includes('"Alice" is already in the request'));
      expect(said).toHaveLength(1);
      // Another card of the same request still goes in.
      const both = build(wi);
      both.messages.at(-1)!.content = "how is alice? and the blue notebook?";
      expect(injected(await h.send(p.path, p.build(both)))).toBe("the blue notebook");
    },
  );

  test("a card whose text is only partly in the request still goes in", async () => {
    const { h } = await setup();
    const res = await h.send(
      p.path,
      p.build({ system: "The user's sister; lives in Paris.", messages: [u("how is alice?")] }),
    );
    expect(injected(res)).toBe("Alice");
  });

  test("with the hook's boot block in the request the guide goes in once, the hook's", async () => {
    const { h, vault, markers } = await setup();
    fs.writeFileSync(path.join(vault, "guide.md"), "Keep notes of what lasts; the guide speaks.\n");
    const boot = wrapBlock("Keep notes of what lasts; the guide speaks.\n", markers);
    const res = await h.send(p.path, p.build({ system: boot, messages: [u("how is alice?")] }));
    expect(injected(res)).toBe("Alice");
    const sent = suite.upstream().received.at(-1)!.body;
    expect(sent.split("the guide speaks").length - 1).toBe(1);
  });

  test("a body changed only by the guide says so in X-Lorecards-Injected", async () => {
    const { h, vault } = await setup();
    fs.writeFileSync(path.join(vault, "guide.md"), "Keep notes of what lasts.\n");
    const res = await h.send(p.path, p.build({ messages: [u("nothing to see")] }));
    expect(suite.upstream().received.at(-1)!.body).toContain("Keep notes of what lasts.");
    expect(injected(res)).toBe("guide.md");
  });
});
