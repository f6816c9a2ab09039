// Style memory end to end (README "Style memory"): the recorded chat of test/fixtures/style/chat.json
// fed through the compiled gateway (OpenAI and Anthropic, with the retries and tool loops clients send)
// and the compiled hook, then read back with `lorecards style … --json`. It shows candidates, the
// two-conversation activation, the person's controls (pin, forget, pause, resume, `--no-learn`), brief
// revisions that stay put while nothing changes, and the TTLs crossed by moving $LORECARDS_STYLE_NOW.
// The tests run in order and build on each other, as one person's weeks would.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { type GatewayProcess, startGatewayBinary } from "../support/gateway-binary.ts";
import {
  type Chat,
  conversationOf,
  hookPayload,
  loadChat,
  MODEL_REPLY,
  replayThroughGateway,
} from "../support/style-chat.ts";
import { makeVault, removeDir } from "../support/vault.ts";
import { until } from "../support/wait.ts";

const DAY = 86_400_000;
const T0 = Date.parse("2026-01-05T09:00:00Z");

interface Habit {
  id: string;
  signal: string;
  state: "candidate" | "active" | "archived";
  pinned: boolean;
  count: number;
  conversations: number;
  /** ISO 8601. */
  last_seen: string;
}

let bin = "";
let vault = "";
let home = "";
let chat: Chat;
let upstream: FakeUpstream;
let gateway: GatewayProcess;

beforeAll(async () => {
  bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  vault = makeVault();
  home = fs.mkdtempSync(path.join(os.tmpdir(), "lc-style-home-"));
  chat = await loadChat();
  upstream = startFakeUpstream({ reply: () => MODEL_REPLY });
  gateway = await startGatewayBinary(bin, vault, upstream.url, home, { env: clock(T0) });
});
afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
  removeDir(vault);
  removeDir(home);
});

/**
 * The gateway learns after it has answered; stopping it waits for what it was handed. A fresh one
 * then carries on (its clock at T0: the TTL tests move time in the hook and the CLI).
 */
async function drainGateway(): Promise<void> {
  await gateway.stop();
  expect(gateway.stderr()).not.toContain("style not learned");
  gateway = await startGatewayBinary(bin, vault, upstream.url, home, { env: clock(T0) });
}

function clock(at: number): Record<string, string> {
  return { LORECARDS_STYLE_NOW: String(at) };
}

async function style(args: string[], at = T0) {
  const r = await runBinary(["style", ...args, "--vault", vault, "--json"], {
    env: { HOME: home, ...clock(at) },
  });
  // biome-ignore lint/suspicious/noExplicitAny: each test asserts the fields it needs.
  const data = (r.stdout ? JSON.parse(r.stdout) : {}) as Record<string, any>;
  return { code: r.code, data, stderr: r.stderr };
}

async function habits(at = T0): Promise<Map<string, Habit>> {
  const { code, data, stderr } = await style(["list"], at);
  expect(code, stderr).toBe(0);
  return new Map((data.habits as Habit[]).map((h) => [h.signal, h]));
}

async function hook(session: string, prompt: string, at = T0, args: string[] = []) {
  const r = await runBinary(["hook", "--vault", vault, ...args], {
    stdin: hookPayload(session, prompt),
    env: { HOME: home, ...clock(at) },
  });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
}

async function hookConversation(id: string, at = T0, args: string[] = []): Promise<void> {
  for (const prompt of conversationOf(chat, id).messages) await hook(id, prompt, at, args);
}

describe("style memory through the compiled gateway and hook", () => {
  test("one conversation leaves only candidates, each turn counted once", async () => {
    await replayThroughGateway(gateway.url, conversationOf(chat, "chat-openai-1"));
    await drainGateway();
    const seen = await habits();
    expect(seen.size).toBeGreaterThan(0);
    for (const h of seen.values()) expect([h.signal, h.state]).toEqual([h.signal, "candidate"]);
    // "lol" ends three of the four messages: three sightings, one conversation, still a candidate.
    expect(seen.get("lol")).toMatchObject({ count: 3, conversations: 1, state: "candidate" });
    // Each turn went three times (a retry, a tool loop), the model answered "no cap" every time, and
    // the tool's output said it too: the person said it once.
    expect(seen.get("no cap")).toMatchObject({ count: 1, conversations: 1 });
    expect(seen.has("yyds")).toBe(false);
    expect(seen.has("lowkey")).toBe(false);
  });

  test("a second conversation activates what both say; what only one says stays a candidate", async () => {
    await replayThroughGateway(gateway.url, conversationOf(chat, "chat-anthropic-1"));
    await drainGateway();
    const seen = await habits();
    expect(seen.get("no cap")).toMatchObject({ count: 2, conversations: 2, state: "active" });
    expect(seen.get("ngl")).toMatchObject({ conversations: 2, state: "active" });
    expect(seen.get("绝绝子")).toMatchObject({ count: 1, state: "candidate" });
    expect(seen.get("lol")?.state).toBe("candidate");
  });

  test("the hook's prompts count too: one Claude Code session is one conversation", async () => {
    await hookConversation("hook-session-1");
    const seen = await habits();
    expect(seen.get("绝绝子")).toMatchObject({ count: 2, conversations: 2, state: "active" });
    expect(seen.get("yyds")).toMatchObject({ conversations: 2, state: "active" });
    expect(seen.get("✨")).toMatchObject({ state: "active" });
  });

  test("the brief keeps its revision while nothing changes, and answers an ack for it", async () => {
    const first = await style(["brief"]);
    expect(first.code).toBe(0);
    expect(first.data.kind).toBe("full");
    expect(first.data.text).toContain("no cap");
    expect((await style(["brief"])).data.revision).toBe(first.data.revision);
    // --no-learn: the prompt is not observed, so the brief cannot change.
    await hook("hook-session-1", "no cap lowkey 🙏", T0, ["--no-learn"]);
    const again = await style(["brief", "--since", String(first.data.revision)]);
    expect(again.data).toMatchObject({ kind: "ack", revision: first.data.revision });
    expect((await habits()).has("lowkey")).toBe(false);
  });

  test("pin, forget, and the exit codes of a wrong id or action", async () => {
    const seen = await habits();
    const before = (await style(["brief"])).data.revision;
    const pinned = await style(["pin", seen.get("no cap")!.id]);
    expect(pinned.code).toBe(0);
    expect(pinned.data.habit.pinned).toBe(true);
    const ngl = seen.get("ngl")!.id;
    expect((await style(["forget", ngl])).data).toEqual({ forgotten: ngl });
    expect((await habits()).has("ngl")).toBe(false);
    expect((await style(["brief"])).data.revision).not.toBe(before);
    const again = await style(["forget", ngl]);
    expect(again.code).toBe(3);
    expect(again.data.error).toBe("not_found");
    expect((await style(["pin"])).code).toBe(2);
    expect((await style(["frobnicate"])).code).toBe(2);
  });

  test("pause stops the running gateway and the hook from learning; resume starts them again", async () => {
    // The running gateway opens its style book on the first message it learns from: before the pause.
    const lol = (await habits()).get("lol")!.count;
    await replayThroughGateway(gateway.url, { id: "chat-openai-0", surface: "openai", messages: ["lol"] });
    await until(async () => (await habits()).get("lol")?.count === lol + 1, "the gateway to learn lol");
    expect((await style(["pause"])).data).toEqual({ learning: false });
    await hookConversation("hook-session-2");
    await replayThroughGateway(gateway.url, {
      id: "chat-openai-2",
      surface: "openai",
      messages: ["lowkey bussin fr 🙏"],
    });
    await drainGateway();
    const paused = await habits();
    expect(paused.has("lowkey")).toBe(false);
    expect(paused.has("🙏")).toBe(false);
    expect((await style(["resume"])).data).toEqual({ learning: true });
    await hookConversation("hook-session-2");
    expect((await habits()).get("lowkey")).toMatchObject({ count: 1, state: "candidate" });
  });

  test("time: candidates go after 30 days unseen; active ones are archived after 180 and deleted after 360; pinned ones stay", async () => {
    // Twenty days on, the person says yyds again: that, and only that, refreshes it.
    await hook("hook-session-3", "yyds 真的", T0 + 20 * DAY);
    const before = await habits(T0 + 29 * DAY);
    expect(before.get("破防了")?.state).toBe("candidate");
    const month = await habits(T0 + 31 * DAY);
    // Every candidate of the first day is gone; the one said on day 20 is not.
    expect(month.has("破防了")).toBe(false);
    expect(month.has("lowkey")).toBe(false);
    expect([...month.values()].filter((h) => h.state === "candidate").map((h) => h.signal)).toEqual(
      [...month.values()]
        .filter((h) => h.state === "candidate" && Date.parse(h.last_seen) > T0)
        .map((h) => h.signal),
    );
    expect(month.get("no cap")?.state).toBe("active");
    expect(month.get("绝绝子")?.state).toBe("active");

    const halfYear = await habits(T0 + 181 * DAY);
    expect(halfYear.get("绝绝子")?.state).toBe("archived");
    expect(halfYear.get("yyds")?.state).toBe("active");
    expect(halfYear.get("no cap")).toMatchObject({ state: "active", pinned: true });
    const brief = (await style(["brief"], T0 + 181 * DAY)).data.text as string;
    expect(brief).not.toContain("绝绝子");
    expect(brief).toContain("no cap");

    const year = await habits(T0 + 361 * DAY);
    expect(year.has("绝绝子")).toBe(false);
    expect(year.get("yyds")?.state).toBe("archived");
    expect(year.get("no cap")).toMatchObject({ state: "active", pinned: true });
  });
});

describe("learning switched off", () => {
  test("--no-learn on the gateway and learn: false in settings.yaml: nothing is observed", async () => {
    const quiet = makeVault();
    try {
      const off = await startGatewayBinary(bin, quiet, upstream.url, home, { args: ["--no-learn"] });
      try {
        await replayThroughGateway(off.url, conversationOf(chat, "chat-openai-1"));
      } finally {
        await off.stop();
      }
      fs.writeFileSync(path.join(quiet, "settings.yaml"), "learn: false\n");
      const r = await runBinary(["hook", "--vault", quiet], {
        stdin: hookPayload("s", "no cap yyds"),
        env: { HOME: home },
      });
      expect(r.stderr).toBe("");
      expect(fs.existsSync(path.join(quiet, ".lorecards", "style.db"))).toBe(false);
      const list = await runBinary(["style", "list", "--vault", quiet, "--json"], { env: { HOME: home } });
      expect(JSON.parse(list.stdout).habits).toEqual([]);
    } finally {
      removeDir(quiet);
    }
  });
});
