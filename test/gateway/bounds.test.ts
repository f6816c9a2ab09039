/**
 * One request never holds up another (README "One request never holds up another"). The gateway and
 * the fake upstream each run in a process of their own, and while a pathological chat request goes
 * through, small requests the gateway answers itself (a Host it does not serve: 403) are sent one after
 * another. What a small request waits for is the work the gateway does between two turns of its event
 * loop; the gateway process reports each such stretch in its main thread's CPU time (gateway-process.ts
 * --stretches), and none may pass what three passes over the largest body it reads (parse and write
 * back 32 MiB) cost the same thread just after: about 150 ms when the machine is idle. CPU time, not the
 * small requests' wall-clock time, and in a unit measured beside it, so two cores shared with other
 * work make the test neither fail nor pass by accident; the slowest small request is in the message
 * when it fails. Each case here once held the others up for seconds to minutes.
 *
 * The kernel adds one cost the unit does not carry: each fresh buffer of tens of megabytes is mapped
 * page by page as it is first written, and on a busy virtual machine those 7,000 page faults now and
 * then take 80 ms of system time instead of 15, landing in whichever stretch allocates. So a case
 * over the bound is sent again, with a message of its own, up to `ATTEMPTS` times in all: work that
 * grows faster than the body, which is what these cases catch, is over the bound every time.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Msg, openaiBody } from "../support/bodies.ts";
import { type ChildServer, startChild } from "../support/child-server.ts";
import { startFakeUpstream } from "../support/fake-upstream.ts";
import { harness } from "../support/gateway.ts";
import { CARDS, makeVault, removeDir } from "../support/vault.ts";

const MB = 1024 * 1024;
/**
 * The most CPU time the gateway may spend between two turns of its event loop, in passes over the
 * largest chat body it reads (stretch.ts passCost), measured in the same process just after: some
 * 150 ms on an idle machine, and as much more as the machine's load makes every instruction dearer.
 */
const PASSES = 3;
const ATTEMPTS = 3;

let upstream: ChildServer;
let gateway: ChildServer;
let vault: string;

beforeAll(async () => {
  vault = makeVault();
  upstream = await startChild("test/support/fake-upstream-process.ts");
  gateway = await startChild("test/support/gateway-process.ts", [vault, upstream.url, "--stretches"]);
  // The first chat request loads the matcher and style memory's dictionary: no later request's cost.
  await (await post(chat("alice, no cap"))).text();
});
afterAll(async () => {
  await gateway.stop();
  await upstream.stop();
  removeDir(vault);
});

/** A request the gateway answers by itself, and how long that took. */
async function small(): Promise<number> {
  const t = performance.now();
  const res = await fetch(`${gateway.url}/v1/models`, { headers: { host: "elsewhere.example" } });
  await res.arrayBuffer();
  if (res.status !== 403) throw new Error(`the small request got ${res.status}, not the gateway's own 403`);
  return performance.now() - t;
}

function post(body: BodyInit): Promise<Response> {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    duplex: "half",
  } as RequestInit);
}

/** The body of the last chat request the upstream received. */
async function lastSent(): Promise<string> {
  return (await fetch(`${upstream.url}/received/last`)).text();
}

interface Beside {
  res: Response;
  /** The slowest small request, in ms. */
  worst: number;
  /** The longest the gateway's main thread worked between two turns of its event loop, in ms of CPU. */
  stretch: number;
  /** What one pass over the largest chat body the gateway reads cost the same thread just after, in ms of CPU. */
  pass: number;
}

/**
 * Sends the body `make` gives and small requests one after another until it is answered; again, with
 * the next attempt's body, while the gateway worked longer than the bound (see the top of the file).
 */
async function alongside(make: (attempt: number) => BodyInit): Promise<Beside> {
  let beside = await once(make(0));
  for (let attempt = 1; attempt < ATTEMPTS && heldUp(beside); attempt++) beside = await once(make(attempt));
  return beside;
}

async function once(body: BodyInit): Promise<Beside> {
  const from = gateway.stderr.text().length;
  let done = false;
  const big = post(body).then(async (res) => {
    await res.arrayBuffer();
    done = true;
    return res;
  });
  let worst = 0;
  while (!done) worst = Math.max(worst, await small());
  const res = await big;
  await Bun.sleep(20); // the learner runs after the answer: its stretch counts too
  const to = gateway.stderr.text().length;
  gateway.proc.kill("SIGUSR2");
  await gateway.stderr.waitFor("\npass ", to - 1);
  const said = gateway.stderr.text();
  const stretches = [...said.slice(from, to).matchAll(/^stretch ([\d.]+)$/gm)].map((m) => Number(m[1]));
  const pass = Number(/^pass ([\d.]+)$/m.exec(said.slice(to - 1))?.[1]);
  return { res, worst, stretch: Math.max(0, ...stretches), pass };
}

const heldUp = ({ stretch, pass }: Beside) => stretch > PASSES * pass;

function expectNotHeldUp(beside: Beside): void {
  const { worst, stretch, pass } = beside;
  if (heldUp(beside))
    throw new Error(
      `the gateway worked ${Math.round(stretch)} ms of CPU without letting a request in, more than ` +
        `${PASSES} passes over a 32 MiB chat (${pass} ms each just after; the slowest small request took ${Math.round(worst)} ms)`,
    );
}

const filler = (chars: number, unit: string) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
const chat = (content: string) => JSON.stringify(openaiBody({ messages: [{ role: "user", content }] }));

describe("a small request beside a pathological one is not held up", () => {
  test.each([
    ["1 MB of hex", "0123456789abcdef", MB],
    ["1 MB of base64", "iVBORw0KGgo+/=", MB],
    ["1 MB of Han", "我跟你讲这个项目", MB],
    ["1 MB of emoji", "😭", MB],
    ["1 MB of one credential's name", "password", MB],
    ["28 MB of words", "plain words, no keyword here. ", 28 * MB],
  ])("a message of %s, which is injected", async (_name, unit, size) => {
    const beside = await alongside((n) => chat(`the friday deploy ${n} ${filler(size, unit)}`));
    expect(beside.res.headers.get("x-lorecards-injected")).toBe("the Friday deploy");
    expectNotHeldUp(beside);
  });

  test("a body nested 200,000 levels deep, forwarded byte for byte", async () => {
    const depth = 200_000;
    const raw = `{"model":"x","messages":[{"role":"user","content":"the friday deploy?"}],"x":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const before = gateway.stderr.text().length;
    const beside = await alongside(() => raw);
    expect(beside.res.status).toBe(200);
    expect(beside.res.headers.get("x-lorecards-injected")).toBeNull();
    expect(await lastSent()).toBe(raw);
    expectNotHeldUp(beside);
    await gateway.stderr.waitFor("nested deeper than", before);
  });

  test("a long history full of unclosed wrapper tags, which costs only its scan window and is injected", async () => {
    // Someone discussing the hook's source: every message names <system-reminder> and never closes it.
    const messages = Array.from({ length: 100 }, () => ({
      role: "user" as const,
      content: filler(50_000, "<system-reminder> "),
    }));
    const beside = await alongside((n) =>
      JSON.stringify(
        openaiBody({ messages: [...messages, { role: "user", content: `and the friday deploy? ${n}` }] }),
      ),
    );
    expect(beside.res.headers.get("x-lorecards-injected")).toBe("the Friday deploy");
    expectNotHeldUp(beside);
  });

  test("a realistic 20 MB chat (base64 images and a long history), which is injected", async () => {
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
    const raw = (n: number) =>
      JSON.stringify({
        model: "gpt-test",
        messages: [...messages, { role: "user", content: `the friday deploy? ${n}` }],
      });
    expect(raw(0).length).toBeGreaterThan(19 * MB);
    const beside = await alongside(raw);
    expect(beside.res.headers.get("x-lorecards-injected")).toBe("the Friday deploy");
    const sent = JSON.parse(await lastSent()) as { messages: { content: unknown }[] };
    expect(sent.messages.slice(0, -1)).toEqual(messages as typeof sent.messages);
    expectNotHeldUp(beside);
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
    "a chat body past the size the gateway reads (%s), streamed upstream untouched with a line on stderr",
    async (_name, make) => {
      const messages = [
        { role: "user" as const, content: filler(33 * MB, "plain words, no keyword here. ") },
        { role: "user" as const, content: "the friday deploy?" },
      ];
      const raw = JSON.stringify(openaiBody({ messages }));
      const before = gateway.stderr.text().length;
      const beside = await alongside(() => make(raw));
      expect(beside.res.status).toBe(200);
      expect(beside.res.headers.get("x-lorecards-injected")).toBeNull();
      expect((await lastSent()) === raw).toBe(true);
      expectNotHeldUp(beside);
      await gateway.stderr.waitFor("larger than", before);
    },
  );
});

describe("only the scan window is read", () => {
  test("a card with its own scan_depth still fires from further back than --scan-depth; one without does not", async () => {
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
    const local = startFakeUpstream();
    const h = harness(deep, local, { window: 1 });
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
      await local.close();
      removeDir(deep);
    }
  });
});
