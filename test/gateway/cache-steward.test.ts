/**
 * The Anthropic cache breakpoint steward: a `cache_control` on the part holding our stable block, then
 * on the one holding the last replayed block, where it helps and a slot is free; the client's own
 * breakpoints byte for byte; never more than 4; TTLs in the order the API requires; the model input
 * unchanged. Real Claude Code requests (shared/fixtures/real/clients/) with our blocks put in by the
 * adapter, tables for each rule, and a property over random bodies.
 * https://docs.claude.com/en/docs/build-with-claude/prompt-caching
 */

import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { countBreakpoints, MAX_BREAKPOINTS, stewardBreakpoints } from "../../src/gateway/_cache-steward.ts";
import type { Edit, Json, JsonObject } from "../../src/gateway/_chat.ts";
import { anthropicAdapter } from "../../src/gateway/anthropic.ts";
import { markersFromSecret, wrapBlock } from "../../src/inject/index.ts";
import { haveRealFixture, REAL_FIXTURES } from "../support/prerequisites.ts";

const MARKERS = markersFromSecret("cache-steward");
const STABLE = wrapBlock("Zorblax is a moon of Vellmoor.", MARKERS);
const REPLAYED = wrapBlock("Vellmoor is a harbour town.", MARKERS);
const ABSENT = wrapBlock("Lantern Harbour is not in this body.", MARKERS);

const cc = (ttl?: string): JsonObject =>
  ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl };
const text = (t: string, mark?: JsonObject): JsonObject => ({
  type: "text",
  text: t,
  ...(mark ? { cache_control: mark } : {}),
});
const user = (content: Json): JsonObject => ({ role: "user", content });
const assistant = (content: Json): JsonObject => ({ role: "assistant", content });
const withBlock = (block: string, t: string) => `${block}\n\n${t}`;

// ---- what the tests check, written independently of the module ----

type Path = (string | number)[];

/** Every breakpoint with where it is, in prompt order (tools, system, messages, then automatic). */
function breakpoints(body: JsonObject): [Path, Json][] {
  const found: [Path, Json][] = [];
  const visit = (v: Json | undefined, where: Path): void => {
    if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) visit(x, [...where, i]);
    } else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (k === "cache_control") {
          if (x !== null) found.push([[...where, k], x]);
        } else if (k !== "input" && k !== "input_schema") visit(x, [...where, k]);
      }
    }
  };
  for (const key of ["tools", "system", "messages"]) visit(body[key], [key]);
  if (body.cache_control != null) found.push([["cache_control"], body.cache_control]);
  return found;
}

function at(body: Json, where: Path): Json | undefined {
  let v: Json | undefined = body;
  for (const k of where) v = v !== null && typeof v === "object" ? (v as Record<string, Json>)[k] : undefined;
  return v;
}

const rank = (mark: Json) =>
  mark !== null && typeof mark === "object" && "ttl" in mark && mark.ttl === "1h" ? 2 : 1;
const ttlOrderHolds = (body: JsonObject) =>
  breakpoints(body).every(([, m], i, all) => i === 0 || rank(all[i - 1]![1]) >= rank(m));

/** What the model reads: no cache hints, a string being one text part. */
function modelInput(body: JsonObject): unknown {
  const bare = JSON.parse(JSON.stringify(body, (k, v) => (k === "cache_control" ? undefined : v)));
  const parts = (c: unknown) => (typeof c === "string" ? [{ type: "text", text: c }] : c);
  return {
    ...bare,
    system: parts(bare.system),
    messages: bare.messages.map((m: JsonObject) => ({ ...m, content: parts(m.content) })),
  };
}

/** The steward's result, with every promise it makes checked on the way. */
function steward(body: JsonObject, wanted: readonly string[]): JsonObject {
  const before = structuredClone(body);
  const out = stewardBreakpoints(body, wanted);
  expect(body).toEqual(before);
  for (const [where, mark] of breakpoints(body))
    expect(JSON.stringify(at(out, where))).toBe(JSON.stringify(mark));
  expect(modelInput(out)).toEqual(modelInput(body));
  const n = breakpoints(body).length;
  expect(breakpoints(out).length).toBeLessThanOrEqual(Math.max(MAX_BREAKPOINTS, n));
  expect(countBreakpoints(out)).toBe(breakpoints(out).length);
  if (ttlOrderHolds(body)) expect(ttlOrderHolds(out)).toBe(true);
  expect(stewardBreakpoints(out, wanted)).toEqual(out);
  return out;
}

/** The breakpoints the steward added: [where, mark]. */
function added(body: JsonObject, out: JsonObject): [string, Json][] {
  const had = new Set(breakpoints(body).map(([p]) => p.join(".")));
  return breakpoints(out)
    .map(([p, m]): [string, Json] => [p.join("."), m])
    .filter(([p]) => !had.has(p));
}

// ---- real Claude Code requests ----

const CLIENTS = path.join(REAL_FIXTURES, "clients");
const HAVE_FIXTURES = haveRealFixture(
  "cache-steward: the recorded Claude Code sessions",
  "clients/README.md",
);
const recorded = (session: string, n: number) =>
  JSON.parse(fs.readFileSync(path.join(CLIENTS, session, `${String(n).padStart(3, "0")}.json`), "utf8"))
    .body as JsonObject;
const put = (body: JsonObject, edits: Edit[]) => anthropicAdapter.apply(body, edits);

describe.skipIf(!HAVE_FIXTURES)("real Claude Code requests with our blocks in them", () => {
  // Claude Code marks system[1], system[2] and its newest message: one slot is left.
  test.each([
    ["stream-json #3, replayed block in an earlier string prompt", "claude-code-stream-json", 3, 3],
    ["stream-json #5", "claude-code-stream-json", 5, 7],
    ["claude-md #3", "claude-code-claude-md", 3, 3],
    ["tool-loop #3, prompt after the tool result", "claude-code-tool-loop", 3, 3],
  ])(
    "%s: the stable block at the start of the first message takes the one free slot",
    (_n, session, n, replayedAt) => {
      const body = put(recorded(session, n), [
        { anchor: 0, place: "prefix", text: STABLE },
        { anchor: replayedAt, place: "prefix", text: REPLAYED },
      ]);
      const out = steward(body, [STABLE, REPLAYED]);
      expect(added(body, out)).toEqual([["messages.0.content.0.cache_control", cc()]]);
      expect(countBreakpoints(out)).toBe(4);
    },
  );

  test.each([
    ["stream-json", "claude-code-stream-json"],
    ["tool-loop", "claude-code-tool-loop"],
    ["claude-md", "claude-code-claude-md"],
  ])(
    "%s #1: the client's breakpoint on the prompt after it in the same message already covers the stable block",
    (_n, session) => {
      const body = put(recorded(session, 1), [{ anchor: 0, place: "prefix", text: STABLE }]);
      expect(steward(body, [STABLE])).toBe(body);
    },
  );

  test("with --inject system the stable block appended to the system array gets the TTL of the newest message", () => {
    const body = put(recorded("claude-code-stream-json", 4), [{ anchor: 0, place: "system", text: STABLE }]);
    const out = steward(body, [STABLE]);
    expect(added(body, out)).toEqual([["system.3.cache_control", cc()]]);
  });

  test("a client that caches its system prompt for an hour: ours after it takes the 5 minutes of the newest message", () => {
    const raw = recorded("claude-code-stream-json", 3);
    const system = (raw.system as JsonObject[]).map((p) =>
      p.cache_control ? { ...p, cache_control: cc("1h") } : p,
    );
    const body = put({ ...raw, system }, [{ anchor: 0, place: "system", text: STABLE }]);
    const out = steward(body, [STABLE]);
    expect(added(body, out)).toEqual([["system.3.cache_control", cc()]]);
    expect(ttlOrderHolds(out)).toBe(true);
  });

  test("a request with no block of ours, or only a block we did not ask for, is returned as it came", () => {
    const raw = recorded("claude-code-stream-json", 5);
    expect(steward(raw, [STABLE, REPLAYED])).toBe(raw);
    const body = put(raw, [{ anchor: 0, place: "prefix", text: STABLE }]);
    expect(steward(body, [ABSENT])).toBe(body);
  });
});

// ---- the rules, one table each ----

describe("which TTL an added breakpoint takes", () => {
  const first = (t: string) => user([text(withBlock(STABLE, t))]);
  test.each<[string, JsonObject, JsonObject]>([
    ["none when the client has no breakpoint (5 minutes)", { messages: [first("hi")] }, cc()],
    [
      "the nearest after it: a 1-hour system, a 5-minute newest message",
      {
        system: [text("sys", cc("1h"))],
        messages: [first("hi"), assistant("ok"), user([text("next", cc())])],
      },
      cc(),
    ],
    [
      "the client's latest when none is after it",
      { system: [text("sys", cc("1h"))], messages: [first("hi")] },
      cc("1h"),
    ],
    [
      "1 hour when a 1-hour breakpoint follows",
      { messages: [first("hi"), assistant("ok"), user([text("next", cc("1h"))])] },
      cc("1h"),
    ],
    [
      "an explicit 5m, copied as the client wrote it",
      { tools: [{ name: "t", input_schema: {}, cache_control: cc("5m") }], messages: [first("hi")] },
      cc("5m"),
    ],
    [
      "automatic caching's, which sits on the last block",
      { cache_control: cc("1h"), messages: [first("hi"), assistant("ok"), user("next")] },
      cc("1h"),
    ],
    [
      "one nested in a tool result, which comes before the tool result's own",
      {
        messages: [
          first("hi"),
          assistant([{ type: "tool_use", id: "toolu_1", name: "Read", input: {} }]),
          user([
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: [text("x", cc("1h"))],
              cache_control: cc(),
            },
          ]),
        ],
      },
      cc("1h"),
    ],
  ])("%s", (_n, body, mark) => {
    expect(added(body, steward(body, [STABLE]))).toEqual([["messages.0.content.0.cache_control", mark]]);
  });
});

describe("how many it adds", () => {
  const tools = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ name: `t${i}`, input_schema: {}, cache_control: cc() }));
  const body = (n: number, auto = false): JsonObject => ({
    tools: tools(n),
    messages: [
      user(withBlock(STABLE, "hi")),
      assistant("ok"),
      user(withBlock(REPLAYED, "more")),
      assistant("ok"),
    ],
    ...(auto ? { cache_control: cc() } : {}),
  });
  test.each([
    [0, false, 2],
    [1, false, 2],
    [2, false, 2],
    [3, false, 1],
    [4, false, 0],
    [5, false, 0],
    [2, true, 1],
    [3, true, 0],
  ])(
    "%i client breakpoints (automatic caching: %p): %i added, the stable block first",
    (n, auto, expected) => {
      const input = body(n, auto);
      const out = steward(input, [STABLE, REPLAYED]);
      expect(added(input, out).map(([p]) => p)).toEqual(
        ["messages.0.content.0.cache_control", "messages.2.content.0.cache_control"].slice(0, expected),
      );
    },
  );
});

describe("where it adds one, and where not", () => {
  const toolResult = (mark?: JsonObject, inner?: JsonObject): JsonObject => ({
    type: "tool_result",
    tool_use_id: "toolu_1",
    content: [text("file contents", inner)],
    ...(mark ? { cache_control: mark } : {}),
  });
  test.each<[string, JsonObject, string[]]>([
    [
      "on the part holding the block",
      { messages: [user([text("before"), text(withBlock(STABLE, "hi"))])] },
      ["messages.0.content.1"],
    ],
    ["not on a part that already has one", { messages: [user([text(withBlock(STABLE, "hi"), cc())])] }, []],
    [
      "not before a client breakpoint later in the same message",
      { messages: [user([text(STABLE), text("hi", cc())])] },
      [],
    ],
    [
      "not before one nested in a tool result later in the same message",
      { messages: [user([text(STABLE), toolResult(undefined, cc())])] },
      [],
    ],
    [
      "after a client breakpoint earlier in the same message",
      { messages: [user([toolResult(cc()), text(STABLE)])] },
      ["messages.0.content.1"],
    ],
    [
      "before a client breakpoint in a later message",
      { messages: [user(STABLE), assistant("ok"), user([text("hi", cc())])] },
      ["messages.0.content.0"],
    ],
    [
      "on a string system, made one text part",
      { system: withBlock("sys", STABLE), messages: [user("hi")] },
      ["system.0"],
    ],
    [
      "on a system part",
      { system: [text("sys"), text(STABLE), text("more")], messages: [user("hi")] },
      ["system.1"],
    ],
    [
      "not before a client breakpoint later in the system",
      { system: [text(STABLE), text("sys", cc())], messages: [user("hi")] },
      [],
    ],
    [
      "not in the last message with automatic caching",
      { cache_control: cc(), messages: [user([text(STABLE), text("hi")])] },
      [],
    ],
    ["not on a block found twice", { messages: [user(STABLE), assistant("ok"), user(STABLE)] }, []],
    ["not in a role: system message", { messages: [user("hi"), { role: "system", content: STABLE }] }, []],
    [
      "not on a tool_result holding the text",
      { messages: [user([{ type: "tool_result", tool_use_id: "t", content: STABLE }])] },
      [],
    ],
  ])("%s", (_n, body, where) => {
    const out = steward(body, [STABLE]);
    expect(added(body, out).map(([p]) => p)).toEqual(where.map((w) => `${w}.cache_control`));
  });

  test("two of our blocks in one part take one slot", () => {
    const body = { messages: [user(`${STABLE}\n\n${REPLAYED}\n\nhi`)] };
    expect(added(body, steward(body, [STABLE, REPLAYED]))).toEqual([
      ["messages.0.content.0.cache_control", cc()],
    ]);
  });

  test("string content is converted only where a breakpoint goes", () => {
    const body = { messages: [user(withBlock(STABLE, "hi")), assistant("ok"), user("more")] };
    const out = steward(body, [STABLE]);
    expect(out.messages).toEqual([
      user([text(withBlock(STABLE, "hi"), cc())]),
      assistant("ok"),
      user("more"),
    ]);
  });
});

describe("bodies it does not expect are returned unchanged", () => {
  const fine = [user(STABLE)];
  test.each<[string, unknown]>([
    ["no messages", {}],
    ["messages not a list", { messages: "hi" }],
    ["a message not an object", { messages: [STABLE] }],
    ["content a number", { messages: [user(7)] }],
    ["system a number", { system: 7, messages: fine }],
    ["tools an object", { tools: {}, messages: fine }],
    ["automatic caching with no block", { cache_control: cc(), messages: [] }],
  ])("%s", (_n, body) => {
    expect(stewardBreakpoints(body as JsonObject, [STABLE])).toBe(body as JsonObject);
  });

  test("a tool result nested a hundred thousand levels deep is walked without running out of stack", () => {
    let deep: Json = text("x", cc());
    for (let i = 0; i < 100_000; i++) deep = { type: "tool_result", tool_use_id: "t", content: [deep] };
    const body = { messages: [user([deep as JsonObject, text(STABLE)])] };
    expect(countBreakpoints(stewardBreakpoints(body, [STABLE]))).toBe(2);
  });

  test("any JSON at all never makes it throw", () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => void stewardBreakpoints(v as JsonObject, [STABLE])));
  });
});

// ---- random bodies ----

const BLOCKS = [STABLE, REPLAYED, wrapBlock("Third.", MARKERS)];
const ttl = fc.constantFrom(undefined, "5m", "1h");
// Client marks rare enough that most bodies have a free slot.
const mark = fc.oneof(
  { weight: 7, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: ttl.map(cc) },
);
const words = fc.constantFrom("hi", "the file", "more");
const textPart = fc.tuple(words, mark).map(([t, m]) => text(t, m));
const part = fc.oneof(
  { weight: 4, arbitrary: textPart },
  fc.tuple(fc.array(textPart, { maxLength: 2 }), mark).map(([content, m]) => ({
    type: "tool_result",
    tool_use_id: "toolu_1",
    content,
    ...(m ? { cache_control: m } : {}),
  })),
  mark.map((m) => ({
    type: "tool_use",
    id: "toolu_1",
    name: "Read",
    input: { cache_control: "not a mark" },
    ...(m ? { cache_control: m } : {}),
  })),
);
const content = fc.oneof(words, fc.array(part, { minLength: 1, maxLength: 4 }));
const message = fc
  .tuple(fc.constantFrom("user", "assistant", "user", "system"), content)
  .map(([role, c]) => ({ role, content: c }));
const body: fc.Arbitrary<JsonObject> = fc
  .record(
    {
      tools: fc.array(
        mark.map((m) => ({
          name: "t",
          input_schema: { type: "object" },
          ...(m ? { cache_control: m } : {}),
        })),
        { maxLength: 3 },
      ),
      system: fc.oneof(words, fc.array(textPart, { minLength: 1, maxLength: 3 })),
      messages: fc.array(message, { minLength: 1, maxLength: 8 }),
      cache_control: ttl.map(cc),
    },
    { requiredKeys: ["messages"] },
  )
  .chain((b) =>
    fc.tuple(fc.constant(b as JsonObject), fc.array(fc.option(fc.nat()), { minLength: 3, maxLength: 3 })),
  )
  .map(([b, picks]) => withOurBlocks(b, picks));

/** `b` with each of BLOCKS put in front of the text picked for it (none for a null pick), as the adapter does. */
function withOurBlocks(b: JsonObject, picks: (number | null)[]): JsonObject {
  const out = structuredClone(b);
  const texts: [JsonObject | Json[], string | number][] = [];
  const collect = (owner: JsonObject, key: string) => {
    const c = owner[key];
    if (typeof c === "string") texts.push([owner, key]);
    else if (Array.isArray(c))
      for (const p of c)
        if (p !== null && typeof p === "object" && "text" in p) texts.push([p as JsonObject, "text"]);
  };
  collect(out, "system");
  for (const m of out.messages as JsonObject[]) collect(m, "content");
  for (const [i, pick] of picks.entries()) {
    const target = pick === null ? undefined : texts[pick % Math.max(texts.length, 1)];
    if (target === undefined) continue;
    const [owner, key] = target as [JsonObject, string];
    owner[key] = withBlock(BLOCKS[i]!, owner[key] as string);
  }
  return out;
}
const wanted = fc.shuffledSubarray([...BLOCKS, ABSENT]);

describe("over random bodies with random client breakpoints and random blocks of ours", () => {
  test("it keeps its promises: client marks kept, at most 4, TTL order, model input, idempotent", () => {
    fc.assert(
      fc.property(body, wanted, (b, w) => {
        const out = steward(b, w);
        const news = added(b, out);
        expect(news.length).toBeLessThanOrEqual(w.length);
        if (breakpoints(b).length >= MAX_BREAKPOINTS) expect(out).toBe(b);
        else expect(breakpoints(out).length).toBeLessThanOrEqual(MAX_BREAKPOINTS);
        for (const [where] of news) {
          const holder = at(
            out,
            where
              .split(".")
              .slice(0, -1)
              .map((k) => (/^\d+$/.test(k) ? Number(k) : k)),
          );
          expect(w.some((t) => String((holder as JsonObject).text).includes(t))).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  test("a body without our blocks is returned as it came", () => {
    fc.assert(
      fc.property(body, (b) => {
        const plain = JSON.parse(JSON.stringify(b).replaceAll(MARKERS.open, "<!-- other -->"));
        expect(stewardBreakpoints(plain, BLOCKS)).toBe(plain);
      }),
    );
  });
});
