/**
 * The caching benchmark's truth (bench/_prefix-upstream.ts over bench/_prefix-cache.ts) is itself
 * tested: a table of request pairs, each sent to a fresh fake upstream on 127.0.0.1:0, and the usage
 * it answers for the second request in the provider's own shape, against counts made here from the
 * texts (a role token opens each message and the system prompt, as the fake counts them).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { countTokens as t } from "../../bench/_prefix-cache.ts";
import { type Api, type PrefixUpstream, startPrefixUpstream } from "../../bench/_prefix-upstream.ts";

const PATHS: Record<Api, string> = { openai: "/v1/chat/completions", anthropic: "/v1/messages" };
const CC = { type: "ephemeral" };
const CC_1H = { type: "ephemeral", ttl: "1h" };

const SYSTEM = "You are the narrator of a story set in a small fishing town.";
const U1 = "I step off the boat and ask the way to the lighthouse.";
const A1 = "A boy points at the white tower on the black rock.";
const U2 = "I climb the stairs and knock on the keeper's door.";

/** Tokens of a message or system prompt as the fake counts them: its role token and its text. */
const m = (text: string) => 1 + t(text);

type Body = Record<string, unknown>;

function openai(...messages: [string, string][]): Body {
  return { model: "m", messages: messages.map(([role, content]) => ({ role, content })) };
}

/** An Anthropic body; a message given as [role, text, cache_control] is one marked text block. */
function anthropic(system: unknown, ...messages: ([string, string] | [string, string, object])[]): Body {
  return {
    model: "m",
    max_tokens: 10,
    system,
    messages: messages.map(([role, text, cc]) => ({
      role,
      content: cc ? [{ type: "text", text, cache_control: cc }] : text,
    })),
  };
}

const marked = (text: string, cc: object = CC) => [{ type: "text", text, cache_control: cc }];

let upstream: PrefixUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function send(api: Api, body: Body): Promise<{ status: number; usage: Record<string, unknown> }> {
  const res = await fetch(`${upstream!.url}${PATHS[api]}`, { method: "POST", body: JSON.stringify(body) });
  const answer = (await res.json()) as { usage: Record<string, unknown> };
  return { status: res.status, usage: answer.usage };
}

describe("OpenAI: the longest common prefix with any earlier request is read", () => {
  const first = openai(["system", SYSTEM], ["user", U1]);
  test.each([
    ["the same request again reads all of it", first, m(SYSTEM) + m(U1)],
    [
      "a request that extends the first reads the whole first one",
      openai(["system", SYSTEM], ["user", U1], ["assistant", A1], ["user", U2]),
      m(SYSTEM) + m(U1),
    ],
    [
      "a request whose last message differs from its first token reads up to that message's role token",
      openai(["system", SYSTEM], ["user", "Zebra crossings are rare here."]),
      m(SYSTEM) + 1,
    ],
    [
      "a changed system prompt leaves only its role token",
      openai(["system", "Zebra crossings are rare here."], ["user", U1]),
      1,
    ],
    ["the same text under another role reads nothing", openai(["developer", SYSTEM], ["user", U1]), 0],
  ])("%s", async (_name, second, cached) => {
    upstream = startPrefixUpstream();
    await send("openai", first);
    const { usage } = await send("openai", second);
    const input = (second.messages as { content: string }[]).reduce((n, x) => n + m(x.content), 0);
    expect(usage).toMatchObject({
      prompt_tokens: input,
      prompt_tokens_details: { cached_tokens: cached },
    });
  });

  test("any earlier request counts, not only the one before", async () => {
    upstream = startPrefixUpstream();
    await send("openai", first);
    await send("openai", openai(["system", "Zebra crossings are rare here."]));
    const { usage } = await send("openai", first);
    expect(usage).toMatchObject({ prompt_tokens_details: { cached_tokens: m(SYSTEM) + m(U1) } });
  });
});

describe("Anthropic: only prefixes ending at a breakpoint are written and read", () => {
  const sys = marked(SYSTEM);
  const turn1 = anthropic(sys, ["user", U1, CC]);
  const all = m(SYSTEM) + m(U1) + m(A1) + m(U2);
  test.each([
    [
      "no breakpoint: nothing is read or written",
      anthropic(SYSTEM, ["user", U1]),
      anthropic(SYSTEM, ["user", U1], ["assistant", A1], ["user", U2]),
      { read: 0, written: 0, uncached: all },
    ],
    [
      "the next turn reads the first turn's prefix (its breakpoint is in the lookback) and writes the rest",
      turn1,
      anthropic(sys, ["user", U1], ["assistant", A1], ["user", U2, CC]),
      { read: m(SYSTEM) + m(U1), written: m(A1) + m(U2), uncached: 0 },
    ],
    [
      "tokens after the last breakpoint are neither read nor written",
      turn1,
      anthropic(sys, ["user", U1, CC], ["assistant", A1], ["user", U2]),
      { read: m(SYSTEM) + m(U1), written: 0, uncached: m(A1) + m(U2) },
    ],
    [
      "a changed earlier message leaves the system prompt's entry",
      turn1,
      anthropic(sys, ["user", `${U1} Quickly.`], ["assistant", A1], ["user", U2, CC]),
      { read: m(SYSTEM), written: m(`${U1} Quickly.`) + m(A1) + m(U2), uncached: 0 },
    ],
    [
      "a prefix that was sent but not marked was never written",
      anthropic(sys, ["user", U1]),
      anthropic(sys, ["user", U1], ["assistant", A1], ["user", U2, CC]),
      { read: m(SYSTEM), written: m(U1) + m(A1) + m(U2), uncached: 0 },
    ],
    [
      "a top-level cache_control marks the last block (automatic caching)",
      { ...anthropic(SYSTEM, ["user", U1]), cache_control: CC },
      { ...anthropic(SYSTEM, ["user", U1], ["assistant", A1], ["user", U2]), cache_control: CC },
      { read: m(SYSTEM) + m(U1), written: m(A1) + m(U2), uncached: 0 },
    ],
  ])("%s", async (_name, first, second, expected) => {
    upstream = startPrefixUpstream();
    await send("anthropic", first);
    const { usage } = await send("anthropic", second);
    expect(usage).toMatchObject({
      input_tokens: expected.uncached,
      cache_read_input_tokens: expected.read,
      cache_creation_input_tokens: expected.written,
    });
  });

  test.each([
    [20, true],
    [21, false],
  ])("an entry %i blocks before the breakpoint is read: %p (the lookback is 20 blocks)", async (n, hit) => {
    upstream = startPrefixUpstream();
    await send("anthropic", anthropic(SYSTEM, ["user", U1, CC]));
    const notes = Array.from({ length: n }, (_, i) => ({
      type: "text",
      text: `Note ${i}.`,
      ...(i === n - 1 && { cache_control: CC }),
    }));
    const second = {
      ...anthropic(SYSTEM),
      messages: [
        { role: "user", content: U1 },
        { role: "user", content: notes },
      ],
    };
    const { usage } = await send("anthropic", second);
    expect(usage.cache_read_input_tokens).toBe(hit ? m(SYSTEM) + m(U1) : 0);
  });

  test("an entry lives for its TTL after it was last read, then is gone", async () => {
    let now = 0;
    upstream = startPrefixUpstream({ now: () => now });
    const read = async () => (await send("anthropic", turn1)).usage.cache_read_input_tokens;
    await send("anthropic", turn1);
    now = 4 * 60_000;
    expect(await read()).toBe(m(SYSTEM) + m(U1));
    now = 8 * 60_000; // 4 minutes after the read that refreshed it
    expect(await read()).toBe(m(SYSTEM) + m(U1));
    now = 13 * 60_000 + 1;
    expect(await read()).toBe(0);
  });

  test("a 1-hour breakpoint is written as such and outlives 5 minutes", async () => {
    let now = 0;
    upstream = startPrefixUpstream({ now: () => now });
    const body = anthropic(marked(SYSTEM, CC_1H), ["user", U1, CC]);
    const first = await send("anthropic", body);
    expect(first.usage.cache_creation).toEqual({
      ephemeral_5m_input_tokens: m(U1),
      ephemeral_1h_input_tokens: m(SYSTEM),
    });
    now = 30 * 60_000;
    expect((await send("anthropic", body)).usage).toMatchObject({
      cache_read_input_tokens: m(SYSTEM),
      cache_creation_input_tokens: m(U1),
    });
  });

  test.each([
    [
      "five breakpoints",
      anthropic(
        marked(SYSTEM),
        ["user", U1, CC],
        ["assistant", A1, CC],
        ["user", U2, CC],
        ["assistant", A1, CC],
      ),
      /A maximum of 4 blocks/,
    ],
    ["a 1-hour breakpoint after a 5-minute one", anthropic(sys, ["user", U1, CC_1H]), /ttl "1h"/],
  ])("%s is refused with 400, as the API does, and recorded", async (_name, body, why) => {
    upstream = startPrefixUpstream();
    const { status } = await send("anthropic", body);
    expect(status).toBe(400);
    expect(upstream.problems).toEqual([expect.stringMatching(why)]);
    expect(upstream.seen).toEqual([]);
  });
});

describe("what the fake cannot count is recorded", () => {
  test.each([
    [
      "a stream asked for (it answers JSON only)",
      "openai",
      openai(["user", U1]),
      { ...openai(["user", U1]), stream: true },
      /asked for a stream/,
    ],
    [
      "an Anthropic image block",
      "anthropic",
      anthropic(SYSTEM, ["user", U1]),
      { ...anthropic(SYSTEM), messages: [{ role: "user", content: [{ type: "image", source: {} }] }] },
      /could not tokenize message 0: a "image" block/,
    ],
    [
      "an OpenAI image part",
      "openai",
      openai(["user", U1]),
      { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }] },
      /could not tokenize message 0: a "image_url" part/,
    ],
  ] as const)("%s", async (_name, api, good, bad, why) => {
    upstream = startPrefixUpstream();
    await send(api, good);
    expect(upstream.problems).toEqual([]);
    await send(api, bad);
    expect(upstream.problems).toEqual([expect.stringMatching(why)]);
  });
});
