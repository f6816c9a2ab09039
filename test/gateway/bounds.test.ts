/**
 * One request never holds up the others. The gateway runs in its own process (so the test's own work
 * never counts as the gateway's) and small GETs are sent to it one after another while an odd or huge
 * chat request goes through; none of them may wait for it. Bounds are generous: the failures they catch
 * took seconds.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { type Msg, openaiBody } from "../support/bodies.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { harness } from "../support/gateway.ts";
import { CARDS, makeVault, removeDir } from "../support/vault.ts";
import { type StreamText, streamText } from "../support/wait.ts";

const BUN = path.resolve("node_modules/.bin/bun");
const MB = 1024 * 1024;
const FAST_MS = 1000;

let upstream: FakeUpstream;
let vault: string;
let gateway: { url: string; stderr: StreamText; proc: Bun.Subprocess };

async function spawnGateway(): Promise<typeof gateway> {
  const proc = Bun.spawn([BUN, "test/support/gateway-process.ts", vault, upstream.url], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = streamText(proc.stderr);
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`gateway process exited before listening: ${stderr.text()}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { url: text.trim(), stderr, proc };
}

beforeAll(async () => {
  upstream = startFakeUpstream();
  vault = makeVault();
  gateway = await spawnGateway();
});
afterAll(async () => {
  gateway.proc.kill();
  await gateway.proc.exited;
  await upstream.close();
  removeDir(vault);
});

/**
 * Sends `body` and, until its answer is read, small GETs one after another; returns the big request's
 * answer and the longest any small one took.
 */
async function alongside(body: BodyInit, headers: Record<string, string> = {}) {
  const small = async () => {
    const t = performance.now();
    await (await fetch(`${gateway.url}/v1/models`)).arrayBuffer();
    return performance.now() - t;
  };
  await small();
  let done = false;
  const big = fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    duplex: "half",
  } as RequestInit).then(async (res) => {
    await res.arrayBuffer();
    done = true;
    return res;
  });
  let worst = 0;
  while (!done) worst = Math.max(worst, await small());
  return { res: await big, worst };
}

const last = () => upstream.received.findLast((r) => r.path === "/v1/chat/completions")!;
const filler = (chars: number, unit: string) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);

describe("one request never holds up the others", () => {
  test("a body nested 200,000 levels deep is forwarded byte for byte while small requests are served at once", async () => {
    const depth = 200_000;
    const raw = `{"model":"x","messages":[{"role":"user","content":"the friday deploy?"}],"x":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const before = gateway.stderr.text().length;
    const { res, worst } = await alongside(raw);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-lorecards-injected")).toBeNull();
    expect(last().body).toBe(raw);
    expect(worst).toBeLessThan(FAST_MS);
    await gateway.stderr.waitFor("nested deeper than", before);
    expect(gateway.stderr.text().slice(before)).toContain("nested deeper than");
  });

  test("a long history full of unclosed wrapper tags costs only its scan window, and is injected", async () => {
    // Someone discussing the hook's source: every message names <system-reminder> and never closes it.
    const messages = Array.from({ length: 100 }, () => ({
      role: "user" as const,
      content: filler(50_000, "<system-reminder> "),
    }));
    messages.push({ role: "user", content: "and the friday deploy?" });
    const { res, worst } = await alongside(JSON.stringify(openaiBody({ messages })));
    expect(res.headers.get("x-lorecards-injected")).toBe("the Friday deploy");
    expect(worst).toBeLessThan(FAST_MS);
  });

  test("a realistic 20 MB chat (base64 images and a long history) is still injected, quickly", async () => {
    const image = `data:image/png;base64,${"iVBORw0KGgo".repeat(MB / 10)}`;
    const messages: unknown[] = [];
    for (let i = 0; i < 18; i++) {
      messages.push({
        role: "user",
        content: [
          { type: "text", text: `picture ${i}` },
          { type: "image_url", image_url: { url: image } },
        ],
      });
      messages.push({ role: "assistant", content: filler(40_000, "a long answer about pictures. ") });
    }
    messages.push({ role: "user", content: "what about the friday deploy?" });
    const raw = JSON.stringify({ model: "gpt-test", messages });
    expect(raw.length).toBeGreaterThan(19 * MB);
    const { res, worst } = await alongside(raw);
    expect(res.headers.get("x-lorecards-injected")).toBe("the Friday deploy");
    const sent = JSON.parse(last().body) as { messages: { content: unknown }[] };
    expect(sent.messages.slice(0, -1)).toEqual(messages.slice(0, -1) as typeof sent.messages);
    expect(worst).toBeLessThan(FAST_MS);
  });

  test.each([
    ["with a Content-Length", (raw: string) => raw],
    [
      "sent in chunks, without a Content-Length",
      (raw: string) =>
        new ReadableStream<Uint8Array>({
          start(c) {
            const bytes = new TextEncoder().encode(raw);
            for (let at = 0; at < bytes.length; at += MB) c.enqueue(bytes.slice(at, at + MB));
            c.close();
          },
        }),
    ],
  ])(
    "a chat body past the size the gateway reads (%s) is streamed upstream untouched, with a line on stderr",
    async (_name, make) => {
      const messages = [
        { role: "user" as const, content: filler(33 * MB, "plain words, no keyword here. ") },
        { role: "user" as const, content: "the friday deploy?" },
      ];
      const raw = JSON.stringify(openaiBody({ messages }));
      const before = gateway.stderr.text().length;
      const { res } = await alongside(make(raw));
      expect(res.status).toBe(200);
      expect(res.headers.get("x-lorecards-injected")).toBeNull();
      expect(last().body === raw).toBe(true);
      await gateway.stderr.waitFor("larger than", before);
      expect(gateway.stderr.text().slice(before)).toContain("larger than");
    },
  );
});

describe("only the scan window is read", () => {
  test("a card with its own scan_depth still fires from further back than --window; one without does not", async () => {
    const deep = makeVault([
      ...CARDS.filter((c) => c.key !== "the blue notebook"),
      {
        dir: "things",
        key: "the blue notebook",
        keywords: ["blue notebook"],
        body: "## what\nPlans.\n",
        extra: "scan_depth: 5\n",
      },
    ]);
    const h = harness(deep, upstream, { window: 1 });
    try {
      const messages: Msg[] = [
        { role: "user", content: "the blue notebook and the corner cafe" },
        ...["one", "two", "three"].flatMap((w): Msg[] => [
          { role: "assistant", content: "Noted." },
          { role: "user", content: w },
        ]),
      ];
      const res = await h.send("/v1/chat/completions", openaiBody({ messages }));
      expect(res.headers.get("x-lorecards-injected")).toBe("the blue notebook");
    } finally {
      h.close();
      removeDir(deep);
    }
  });
});
