/**
 * One suite, every adapter: what is scanned, where cards go in each inject mode, markers, replay,
 * dedupe and headers must behave the same for OpenAI Chat Completions, Anthropic Messages, OpenAI
 * Responses, the Gemini API, Ollama's chat and text completion. What a protocol cannot carry (images,
 * tools, a text that is a string or parts) its descriptor says, and those tests are not its own.
 */

import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { STEPS_FROM_BYTES } from "../../src/gateway/_serialise.ts";
import { wrapBlock } from "../../src/inject/index.ts";
import { type Msg, PIXEL } from "../support/bodies.ts";
import { gatewaySuite } from "../support/gateway.ts";
import { streamedText } from "../support/protocols/_shared.ts";
import { PROTOCOLS } from "../support/protocols.ts";
import { recentHitsOf, vaultStore } from "../support/state.ts";
import { cardText } from "../support/vault.ts";

const suite = gatewaySuite();
const setup = suite.setup;

const last = () => suite.upstream().received.at(-1)!;
const u = (content: Msg["content"]): Msg => ({ role: "user", content });
const a = (content: string): Msg => ({ role: "assistant", content });

describe.each(PROTOCOLS)("$name adapter", (p) => {
  test("a card named in the last user message goes in front of it, between our markers", async () => {
    const { h, markers } = await setup();
    const res = await h.send(
      p.path,
      p.build({ system: "be kind", messages: [u("how did the friday deploy go?")] }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("x-lorecards-injected")).toBe("the Friday deploy");
    const [user] = p.userMessages(last().body);
    const content = String(user!.content);
    expect(content.startsWith(`${markers.open}\nA memory surfaces:\n\n### the Friday deploy [event]\n`)).toBe(
      true,
    );
    expect(content.endsWith(`${markers.close}\n\nhow did the friday deploy go?`)).toBe(true);
  });

  if (p.systemSide)
    test("with --inject system the cards go to the system side and the user message is untouched", async () => {
      const { h, markers } = await setup({ inject: "system" });
      await h.send(p.path, p.build({ system: "be kind", messages: [u("and Alice?")] }));
      expect(p.userMessages(last().body)[0]!.content).toBe("and Alice?");
      const injected = p.systemInjected(last().body, "be kind");
      expect(injected.startsWith(markers.open)).toBe(true);
      expect(injected).toContain("### Alice [people]");
      expect(JSON.stringify(JSON.parse(last().body))).toContain("be kind");
    });

  if (p.images)
    test("non-text parts come through untouched and the block goes in front of the first text", async () => {
      const { h, markers } = await setup();
      const body = p.build({
        messages: [
          u([
            { type: "image", data: PIXEL },
            { type: "text", text: "look at the blue notebook" },
          ]),
        ],
      });
      await h.send(p.path, body);
      const sent = p.userMessages(JSON.stringify(body))[0]!.content as unknown[];
      const got = p.userMessages(last().body)[0]!.content as Record<string, unknown>[];
      expect(got).toHaveLength(2);
      expect(got[0]).toEqual(sent[0] as Record<string, unknown>);
      const text = String(got[1]!.text);
      expect(text.startsWith(markers.open)).toBe(true);
      expect(text.endsWith(`${markers.close}\n\nlook at the blue notebook`)).toBe(true);
    });

  if (p.textShapes)
    test("a prompt sent as one cached text part, then resent as a plain string, keeps its block in place", async () => {
      const { h } = await setup();
      const cached = [{ type: "text", text: "how is Alice?", cache_control: { type: "ephemeral" } }];
      await h.send(p.path, p.build({ messages: [u(cached as Msg["content"])] }));
      const first = p.userMessages(last().body)[0]!.content as Record<string, unknown>[];
      const res = await h.send(
        p.path,
        p.build({ messages: [u("how is Alice?"), a("fine"), u("and then?")] }),
      );
      expect(res.headers.get("x-lorecards-injected")).toBeNull();
      const [again, newest] = p.userMessages(last().body);
      expect(again!.content).toBe(String(first[0]!.text));
      expect(newest!.content).toBe("and then?");
    });

  test("a chat of megabytes, which is written in steps, gets its block as a small one does, in JSON.stringify's bytes", async () => {
    const { h, markers } = await setup();
    const long = "a long answer about the weekend. ".repeat(200_000);
    const body = p.build({
      system: "be kind",
      messages: [u("hello"), a(long), u("how did the friday deploy go?")],
    });
    expect(JSON.stringify(body).length).toBeGreaterThan(STEPS_FROM_BYTES);
    const res = await h.send(p.path, body);
    expect(res.headers.get("x-lorecards-injected")).toBe("the Friday deploy");
    const sent = last().body;
    expect(sent === JSON.stringify(JSON.parse(sent))).toBe(true);
    expect(sent.includes(long)).toBe(true);
    const content = String(p.userMessages(sent).at(-1)!.content);
    expect(content.startsWith(`${markers.open}\nA memory surfaces:\n\n### the Friday deploy [event]\n`)).toBe(
      true,
    );
    expect(content.endsWith(`${markers.close}\n\nhow did the friday deploy go?`)).toBe(true);
  });

  test("earlier turns inside the window are scanned; older turns and the system prompt are not", async () => {
    const { h } = await setup({ window: 1 });
    const res = await h.send(
      p.path,
      p.build({
        system: "you know the corner cafe",
        messages: [u("the blue notebook"), a("sure"), u("and alice?"), a("fine"), u("what now?")],
      }),
    );
    expect(res.headers.get("x-lorecards-injected")).toBe("Alice");
  });

  test("our own block quoted back in a message does not fire its card again", async () => {
    const { h, markers } = await setup();
    const quoted = wrapBlock("A memory surfaces:\n\n### the corner cafe [place]\nthe corner cafe\n", markers);
    const res = await h.send(p.path, p.build({ messages: [u("hello"), a(`${quoted}\n\nhi`), u("ok")] }));
    expect(res.headers.get("x-lorecards-injected")).toBeNull();
  });

  test("a request with nothing to inject reaches upstream byte for byte", async () => {
    const { h } = await setup();
    const raw = JSON.stringify(p.build({ messages: [u("nothing here")] }), null, 2);
    await h.sendRaw(p.path, raw);
    expect(last().body).toBe(raw);
  });

  test("a card injected at turn n is replayed into the same message, not injected again, while in context", async () => {
    const { h, markers } = await setup();
    await h.send(p.path, p.build({ messages: [u("the friday deploy?")] }));
    const first = p.userMessages(last().body)[0]!.content;
    const res = await h.send(
      p.path,
      p.build({ messages: [u("the friday deploy?"), a("Noted."), u("that deploy again")] }),
    );
    expect(res.headers.get("x-lorecards-injected")).toBeNull();
    const [u1, u2] = p.userMessages(last().body);
    expect(u1!.content).toEqual(first);
    expect(String(u2!.content)).toBe("that deploy again");
    expect(String(first)).toContain(markers.open);
  });

  test.each([
    [2, [true, false, true]],
    [0, [true, true, true]],
    [6, [true, false, false]],
  ])("with --reinject-after %d a repeated mention injects on turns %j", async (n, expected) => {
    const { h } = await setup({ reinjectAfter: n });
    const messages: Msg[] = [];
    const got: boolean[] = [];
    for (let turn = 1; turn <= 3; turn++) {
      messages.push(u(`deploy ${turn}`));
      const res = await h.send(p.path, p.build({ messages }));
      got.push(res.headers.get("x-lorecards-injected") === "the Friday deploy");
      messages.push(a("Noted."));
    }
    expect(got).toEqual(expected);
  });

  const toolTurn = p.toolTurn;
  if (toolTurn)
    test("a card that first fires inside a tool loop never goes into a message an earlier request carried: it comes with the next typed one", async () => {
      const { h, vault } = await setup();
      const turn = { messages: [u("what do we know about Zed?")] };
      await h.send(p.path, p.build(turn));
      const first = p.messages(last().body);
      // Inside the loop the model writes a card for Zed (through MCP, say): the next request names it.
      writeCard(vault, "people", "Zed", ["zed"], "## who\nThe lighthouse keeper.\n");
      const r2 = await h.send(p.path, toolTurn(turn, "the notes"));
      expect(r2.headers.get("x-lorecards-injected")).toBeNull();
      const second = p.messages(last().body);
      expect(second.slice(0, first.length)).toEqual(first);
      const r3 = await h.send(p.path, toolTurn(turn, "the notes", [a("Done."), u("thanks")]));
      expect(r3.headers.get("x-lorecards-injected")).toBe("Zed");
      const third = p.messages(last().body);
      expect(third.slice(0, second.length)).toEqual(second);
    });

  if (toolTurn)
    test("a tool round trip is not a new turn: the cards stay where they went and the tool result is untouched", async () => {
      const { h } = await setup({ reinjectAfter: 1 });
      const turn = { messages: [u("what does alice think of the friday deploy?")] };
      const r1 = await h.send(p.path, p.build(turn));
      const first = JSON.stringify(p.userMessages(last().body)[0]);
      const looped = toolTurn(turn, "the corner cafe is closed");
      const r2 = await h.send(p.path, looped);
      const sent = p.messages(last().body);
      expect(JSON.stringify(sent[0])).toBe(first);
      expect(JSON.stringify(sent.slice(1))).toBe(JSON.stringify(p.messages(JSON.stringify(looped)).slice(1)));
      expect(r2.headers.get("x-lorecards-injected")).toBe(r1.headers.get("x-lorecards-injected"));
    });

  test("a conversation is stored from its first card on, and a request that brings none before that writes nothing", async () => {
    const { h, vault } = await setup();
    const headers = { "x-lorecards-conversation": "quiet" };
    const messages: Msg[] = [u("hello there")];
    await h.send(p.path, p.build({ messages }), headers);
    const store = await vaultStore(vault);
    try {
      expect((await store.loadConversation("quiet")).turn).toBe(0);
      messages.push(a("hi"), u("and Alice?"));
      await h.send(p.path, p.build({ messages }), headers);
      expect(await store.loadConversation("quiet")).toMatchObject({
        turn: 2,
        injections: [{ id: "people/Alice", turn: 2 }],
      });
      messages.push(a("fine"), u("nothing new"));
      await h.send(p.path, p.build({ messages }), headers);
      expect((await store.loadConversation("quiet")).turn).toBe(3);
    } finally {
      await store.close();
    }
  });

  test("a regenerate of the same turn gets the same cards, byte for byte", async () => {
    const { h } = await setup();
    const body = p.build({ messages: [u("alice"), a("hi"), u("the blue notebook and the cafe")] });
    const r1 = await h.send(p.path, body);
    const first = last().body;
    const r2 = await h.send(p.path, body);
    expect(last().body).toBe(first);
    expect(r2.headers.get("x-lorecards-injected")).toBe(r1.headers.get("x-lorecards-injected"));
    expect(r1.headers.get("x-lorecards-injected")).toBe("the blue notebook,the corner cafe,Alice");
  });

  test("an edited message loses its cards, which may then go in again", async () => {
    const { h, markers } = await setup();
    await h.send(p.path, p.build({ messages: [u("the friday deploy?")] }));
    const res = await h.send(p.path, p.build({ messages: [u("the friday deploy!"), a("ok"), u("deploy")] }));
    expect(res.headers.get("x-lorecards-injected")).toBe("the Friday deploy");
    const [u1, u2] = p.userMessages(last().body);
    expect(u1!.content).toBe("the friday deploy!");
    expect(String(u2!.content).startsWith(markers.open)).toBe(true);
  });

  test("conversations are told apart by X-Lorecards-Conversation, else by system prompt and first message", async () => {
    const { h } = await setup();
    const turn1 = p.build({ system: "s", messages: [u("cafe")] });
    const turn2 = p.build({ system: "s", messages: [u("cafe"), a("ok"), u("the cafe again")] });
    await h.send(p.path, turn1);
    expect((await h.send(p.path, turn2)).headers.get("x-lorecards-injected")).toBeNull();
    const other = await h.send(p.path, turn2, { "X-Lorecards-Conversation": "another" });
    expect(other.headers.get("x-lorecards-injected")).toBe("the corner cafe");
    const otherSystem = await h.send(p.path, p.build({ system: "t", messages: [u("a cafe?")] }));
    expect(otherSystem.headers.get("x-lorecards-injected")).toBe("the corner cafe");
    const otherOpening = await h.send(
      p.path,
      p.build({ system: "s", messages: [u("hello"), a("ok"), u("the cafe")] }),
    );
    expect(otherOpening.headers.get("x-lorecards-injected")).toBe("the corner cafe");
  });

  test("a system prompt that changes part way does not start a new conversation", async () => {
    const { h } = await setup();
    await h.send(p.path, p.build({ system: "model A, 1M context", messages: [u("the cafe")] }));
    const later = p.build({ system: "model A", messages: [u("the cafe"), a("ok"), u("the corner cafe?")] });
    const res = await h.send(p.path, later);
    expect(res.headers.get("x-lorecards-injected")).toBeNull();
    expect(p.userMessages(last().body)[0]!.content).toContain("### the corner cafe [place]");
  });

  test("a card named outside ASCII is percent-encoded in X-Lorecards-Injected", async () => {
    const { h } = await setup();
    const res = await h.send(p.path, p.build({ messages: [u("小林 called")] }));
    expect(res.headers.get("x-lorecards-injected")).toBe("%E5%B0%8F%E6%9E%97");
    expect(decodeURIComponent(res.headers.get("x-lorecards-injected")!)).toBe("小林");
  });

  test("the token header never reaches upstream; the client's keys do, unchanged; hop-by-hop headers do not", async () => {
    const { h } = await setup({}, { token: "s3cret" });
    const body = p.build({ messages: [u("hello")] });
    const denied = await h.send(p.path, body, { authorization: "Bearer sk-1" });
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual({ error: "unauthorized", detail: expect.any(String) });
    const before = suite.upstream().received.length;
    const wrong = await h.send(p.path, body, { "x-lorecards-token": "s3cre" });
    expect(wrong.status).toBe(401);
    expect(suite.upstream().received.length).toBe(before);
    const ok = await h.send(p.path, body, {
      "x-lorecards-token": "s3cret",
      "x-lorecards-conversation": "c",
      authorization: "Bearer sk-1",
      "x-api-key": "sk-ant-1",
      "x-custom": "kept",
      "x-hop": "dropped",
      connection: "x-hop",
      "keep-alive": "timeout=5",
    });
    expect(ok.status).toBe(200);
    const headers = last().headers;
    expect(headers.authorization).toBe("Bearer sk-1");
    expect(headers["x-api-key"]).toBe("sk-ant-1");
    expect(headers["x-custom"]).toBe("kept");
    for (const gone of ["x-lorecards-token", "x-lorecards-conversation", "x-hop", "keep-alive"]) {
      expect(headers[gone]).toBeUndefined();
    }
  });

  test("each surfacing adds a line to hits.jsonl, and --no-log writes none", async () => {
    const logged = await setup();
    await logged.h.send(p.path, p.build({ messages: [u("Alice and the friday deploy")] }));
    const [hit] = await recentHitsOf(logged.vault, 5);
    expect(hit).toMatchObject({
      source: "gateway",
      keys: ["the Friday deploy", "Alice"],
      message: "Alice and the friday deploy",
    });
    expect(hit!.words).toContain("alice");
    const silent = await setup({ log: false });
    await silent.h.send(p.path, p.build({ messages: [u("Alice")] }));
    expect(await recentHitsOf(silent.vault, 5)).toEqual([]);
  });

  test("a streaming request is injected and the stream passed through", async () => {
    const { h, markers } = await setup();
    const res = await h.send(p.streamPath, p.build({ messages: [u("alice?")], stream: true }));
    expect(res.headers.get("content-type")).toContain(p.streamType);
    expect(streamedText(await res.text())).toContain("Noted.");
    expect(String(p.userMessages(last().body)[0]!.content).startsWith(markers.open)).toBe(true);
  });
});

/** A card file written into the vault while the gateway runs, as an agent's `write_card` would. */
function writeCard(vault: string, dir: string, key: string, keywords: string[], body: string): void {
  fs.writeFileSync(path.join(vault, dir, `${key}.md`), cardText({ dir, key, keywords, body }));
}
