/**
 * The Gemini API, Ollama's `/api/chat` and text completion through the gateway handler, in front of a
 * fake upstream that answers each in its own shape (protocol-answers.ts): a card named in the newest
 * message goes in front of it; the next turn carries it again byte for byte (append-only) and adds
 * only the new card; function calls, images and cache fields come through untouched; what the
 * upstream billed, streamed or not, is what the store keeps for the turn.
 */

import { describe, expect, test } from "bun:test";
import { gatewaySuite } from "../support/gateway.ts";
import { billOf, protocolAnswer } from "../support/protocol-answers.ts";
import { vaultStore } from "../support/state.ts";
import { until } from "../support/wait.ts";

const suite = gatewaySuite();
const last = () => suite.upstream().received.at(-1)!;
const body = () => JSON.parse(last().body) as Record<string, unknown>;

type Contents = { role: string; parts: Record<string, unknown>[] }[];
const gemini = (turns: [string, string][], extra: Record<string, unknown> = {}) => ({
  systemInstruction: { parts: [{ text: "be kind" }] },
  contents: turns.map(([role, text]): Contents[number] => ({ role, parts: [{ text }] })),
  ...extra,
});

describe("Gemini API", () => {
  const path = "/v1beta/models/gemini-2.5-flash:generateContent";

  test("a card named in the newest user content goes in front of its text; the next turn keeps it and adds the new one", async () => {
    const { h, markers } = await setup();
    const first = await h.send(path, gemini([["user", "how did the friday deploy go?"]]));
    expect(first.headers.get("x-lorecards-injected")).toBe("the Friday deploy");
    const sent1 = body().contents as Contents;
    const text1 = String(sent1[0]!.parts[0]!.text);
    expect(text1.startsWith(markers.open)).toBe(true);
    expect(text1.endsWith("\n\nhow did the friday deploy go?")).toBe(true);
    const second = await h.send(
      path,
      gemini([
        ["user", "how did the friday deploy go?"],
        ["model", "Fine."],
        ["user", "and Alice?"],
      ]),
    );
    expect(second.headers.get("x-lorecards-injected")).toBe("Alice");
    const sent2 = body().contents as Contents;
    expect(sent2.slice(0, 2)).toEqual([...sent1, { role: "model", parts: [{ text: "Fine." }] }]);
    expect(String(sent2[2]!.parts[0]!.text)).toContain("### Alice [people]");
  });

  test("function calls and responses come through untouched, and a function response is not a turn", async () => {
    const { h } = await setup();
    const call = { functionCall: { name: "lookup", args: { q: "Alice" } } };
    const response = { functionResponse: { name: "lookup", response: { text: "Alice is here" } } };
    const asked = { role: "user", parts: [{ text: "what about Alice?" }] };
    expect((await h.send(path, { contents: [asked] })).headers.get("x-lorecards-injected")).toBe("Alice");
    const contents = [asked, { role: "model", parts: [call] }, { role: "user", parts: [response] }];
    const res = await h.send(path, { contents });
    // The loop's next request is the turn of "what about Alice?" again: its card replayed where it
    // went, nothing in the function response.
    expect(res.headers.get("x-lorecards-injected")).toBe("Alice");
    const sent = body().contents as Contents;
    expect(String(sent[0]!.parts[0]!.text)).toContain("### Alice [people]");
    expect(sent[1]).toEqual(contents[1]!);
    expect(sent[2]).toEqual(contents[2]!);
  });

  test("with --inject system the card goes to systemInstruction, but never beside a cachedContent", async () => {
    const { h } = await setup({ inject: "system" });
    await h.send(path, gemini([["user", "and Alice?"]]));
    const system = body().systemInstruction as { parts: { text: string }[] };
    expect(system.parts[0]!.text).toBe("be kind");
    expect(system.parts[1]!.text).toContain("### Alice [people]");
    await h.send(path, {
      cachedContent: "cachedContents/abc",
      contents: [{ role: "user", parts: [{ text: "Alice!" }] }],
    });
    expect(body().systemInstruction).toBeUndefined();
    expect(body().cachedContent).toBe("cachedContents/abc");
    expect(String((body().contents as Contents)[0]!.parts[0]!.text)).toContain("### Alice [people]");
  });

  test.each([
    ["generateContent", ""],
    ["streamGenerateContent", "?alt=sse"],
    ["streamGenerateContent", ""],
  ])("%s%s: the client gets the upstream's answer, the store what it billed", async (method, search) => {
    const { h, vault } = await setup();
    const res = await h.send(
      `/v1beta/models/gemini-2.5-pro:${method}${search}`,
      gemini([["user", "Alice?"]]),
      {
        "x-lorecards-conversation": `gemini-${method}${search}`,
      },
    );
    // Byte for byte what the fake sent for the body it received.
    const sent = protocolAnswer(last().path, last().search, last().body, "Noted.")!;
    expect(await res.text()).toBe(await sent.text());
    const bill = billOf(last().body.length, "Noted.");
    const turn = await storedTurn(vault, `gemini-${method}${search}`);
    expect(turn?.usage).toEqual({
      uncached: bill.prompt - bill.cached,
      cacheRead: bill.cached,
      cacheWrite: 0,
      output: "Noted.".length,
    });
    expect(turn?.api).toBe("gemini");
  });

  test("a body of another shape passes through unchanged, with a line on stderr", async () => {
    const { h } = await setup();
    const raw = JSON.stringify({ contents: "Alice" });
    await h.sendRaw(path, raw);
    expect(last().body).toBe(raw);
    expect(h.warnings.join("\n")).toContain("gemini body has a shape we do not recognise");
  });
});

describe("Ollama /api/chat", () => {
  test("streams by default: the card goes in front of the newest message, the NDJSON answer comes back whole, usage is kept", async () => {
    const { h, vault, markers } = await setup();
    const res = await h.send(
      "/api/chat",
      {
        model: "llama3",
        messages: [
          { role: "system", content: "be kind" },
          { role: "user", content: "and Alice?" },
        ],
      },
      { "x-lorecards-conversation": "ollama-1" },
    );
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    const lines = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.message.content).join("")).toBe("Noted.");
    const sent = body().messages as { role: string; content: string }[];
    expect(sent[0]).toEqual({ role: "system", content: "be kind" });
    expect(sent[1]!.content.startsWith(markers.open)).toBe(true);
    expect(sent[1]!.content.endsWith("\n\nand Alice?")).toBe(true);
    const bill = billOf(last().body.length, "Noted.");
    expect((await storedTurn(vault, "ollama-1"))?.usage).toEqual({
      uncached: bill.prompt,
      cacheRead: 0,
      cacheWrite: 0,
      output: bill.output,
    });
  });
});

describe("text completion", () => {
  const chatml = (turns: [string, string][]) =>
    `${turns.map(([r, t]) => `<|im_start|>${r}\n${t}<|im_end|>\n`).join("")}<|im_start|>assistant\n`;

  test.each(["/v1/completions", "/api/v1/generate"])(
    "%s, a ChatML prompt: the card goes in front of the newest user turn's text, and stays there next turn",
    async (path) => {
      const { h, markers } = await setup();
      const one = chatml([
        ["system", "You are Seraphina."],
        ["user", "Have you met Alice?"],
      ]);
      const res = await h.send(path, { prompt: one, max_tokens: 50 });
      expect(res.headers.get("x-lorecards-injected")).toBe("Alice");
      const sent1 = String(body().prompt);
      expect(sent1.startsWith("<|im_start|>system\nYou are Seraphina.<|im_end|>\n<|im_start|>user\n")).toBe(
        true,
      );
      expect(sent1).toContain(`${markers.close}\n\nHave you met Alice?<|im_end|>`);
      const two = chatml([
        ["system", "You are Seraphina."],
        ["user", "Have you met Alice?"],
        ["assistant", "Yes."],
        ["user", "And the friday deploy?"],
      ]);
      await h.send(path, { prompt: two, max_tokens: 50 });
      const sent2 = String(body().prompt);
      const kept = sent1.slice(0, sent1.length - "<|im_start|>assistant\n".length);
      expect(sent2.startsWith(kept)).toBe(true);
      expect(sent2).toContain("### the Friday deploy [event]");
    },
  );

  test("the <lorecards/> marker is replaced by the cards for the text after it", async () => {
    const { h, markers } = await setup();
    await h.send("/v1/completions", {
      prompt: "Story so far.\n<lorecards/>\nUser: Alice came by.\nSeraphina:",
    });
    const sent = String(body().prompt);
    expect(sent.startsWith(`Story so far.\n${markers.open}`)).toBe(true);
    expect(sent).not.toContain("<lorecards/>");
    expect(sent.endsWith(`${markers.close}\nUser: Alice came by.\nSeraphina:`)).toBe(true);
  });

  test("a prompt with no template and no marker passes through untouched, said once on stderr", async () => {
    const { h } = await setup();
    for (const line of ["User: Alice came by.\nSeraphina:", "User: and Alice?\nSeraphina:"]) {
      const raw = JSON.stringify({ prompt: line });
      await h.sendRaw("/v1/completions", raw);
      expect(last().body).toBe(raw);
    }
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toContain("POST /v1/completions passed through without cards: no chat template");
  });
});

async function setup(settings: Parameters<typeof suite.setup>[0] = {}) {
  return suite.setup(settings);
}

async function storedTurn(vault: string, conversation: string) {
  const store = await vaultStore(vault);
  try {
    // The usage is recorded once the answer has been read to its end, after the client got it.
    await until(
      async () => (await store.turns(conversation, 5)).at(-1)?.usage !== undefined,
      "the turn usage",
    );
    return (await store.turns(conversation, 5)).at(-1);
  } finally {
    await store.close();
  }
}
