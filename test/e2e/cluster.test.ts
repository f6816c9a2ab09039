/**
 * Many gateways, one shared state: three compiled gateways on one vault and one Postgres store behind
 * HAProxy running the deployment example of the docs, all real (the Debian packages, started here).
 * Any turn may land on any process, and a conversation is what it is with one process: the same bytes
 * upstream, append-only, no card twice. Cards written through another process's API or MCP are used by
 * every gateway within the bound the docs state. Then the faults: a gateway killed mid-conversation
 * and mid-stream, the database restarted, paused for 10 s and cut off; at most the request in flight
 * fails or goes upstream unchanged, and nothing acknowledged is lost.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { openStore, stateUrl } from "../../src/state/index.ts";
import { ensureBinary } from "../support/binary.ts";
import { type Msg, openaiBody } from "../support/bodies.ts";
import { type Cluster, haveHaproxy, startCluster } from "../support/cluster.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { startPostgres } from "../support/postgres.ts";
import { messagesPrefix } from "../support/protocols.ts";
import { makeVault, removeDir, tempDir } from "../support/vault.ts";
import { firstJsonLine } from "./_writers.ts";

/** The bound docs/OPERATIONS.md states for a card written through any process to reach every gateway. */
const CARD_BOUND_MS = 2000;

const pg = await startPostgres("cluster tests");
const ready = pg !== null && haveHaproxy("cluster tests");

let bin = "";
let upstream: FakeUpstream;
let vault = "";
let home = "";
let cluster: Cluster;
const cleanups: (() => Promise<unknown> | unknown)[] = [];

beforeAll(async () => {
  if (!ready) return;
  bin = await ensureBinary();
  upstream = startFakeUpstream();
  vault = makeVault();
  home = tempDir();
  // The cluster's markers come from the same secret as the vault's own state.db, so the bytes a
  // single process on SQLite sends can be compared with the cluster's byte for byte.
  const local = await openStore(stateUrl(vault));
  const secret = await local.markerSecret();
  await local.close();
  const warm = await openStore(pg!.store("warm"));
  await warm.loadConversation("schema");
  await warm.close();
  await pg!.psql(`INSERT INTO lorecards.meta VALUES ('cluster', 'marker-secret', '${secret}')`);
  cluster = await startCluster({ bin, vault, upstream: upstream.url, store: pg!.store("cluster"), home });
}, 180_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await cluster?.stop();
  await upstream?.close();
  await pg?.stop();
  if (vault) removeDir(vault);
  if (home) removeDir(home);
});

interface Turn {
  status: number;
  servedBy: string | null;
  injected: string | null;
  /** What the upstream received for this turn (the last request, when it was reached). */
  sent: string | undefined;
  /** What the client sent: `sent` is this when the gateway passed the request on unchanged. */
  asked: string;
}

/** One conversation, driven turn by turn like a chat client: the whole history each time. */
function chat(base: () => string, opening: string) {
  const system = `You are a helpful companion. [${opening}]`;
  const messages: Msg[] = [];
  const turns: Turn[] = [];
  return {
    turns,
    messages,
    async say(line: string, extra: Record<string, unknown> = {}): Promise<Turn> {
      messages.push({ role: "user", content: line });
      const before = upstream.received.length;
      const asked = JSON.stringify({ ...openaiBody({ system, messages }), ...extra });
      const res = await fetch(`${base()}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: asked,
      });
      await res.text();
      const mine = upstream.received.slice(before).filter((r) => r.body.includes(`[${opening}]`));
      const turn = {
        status: res.status,
        servedBy: res.headers.get("x-lorecards-served-by"),
        injected: res.headers.get("x-lorecards-injected"),
        sent: mine.at(-1)?.body,
        asked,
      };
      turns.push(turn);
      messages.push({ role: "assistant", content: "Noted." });
      return turn;
    },
  };
}

/** Every body the upstream saw begins with the previous one's messages: the conversation only grows. */
function expectAppendOnly(bodies: readonly string[]): void {
  for (let i = 1; i < bodies.length; i++)
    expect(bodies[i]!.startsWith(messagesPrefix(bodies[i - 1]!))).toBe(true);
}

/** No card was injected as new twice in one conversation. */
function expectNoCardTwice(turns: readonly Turn[]): void {
  const cards = turns.flatMap((t) =>
    (t.injected ?? "")
      .split(",")
      .map((c) => c.trim())
      .filter(Boolean),
  );
  expect(new Set(cards).size).toBe(cards.length);
}

const LINES = [
  "how did the friday deploy go?",
  "and Alice?",
  "tell me about the deploy again",
  "we met at the corner cafe",
  "Alice was there too",
  "see you at the cafe",
  "the blue notebook is on the table",
  "bye",
];

describe.skipIf(!ready)("three gateways behind HAProxy on one Postgres store", () => {
  test("a conversation whose turns land on every gateway is the one a single gateway on SQLite sends, byte for byte", async () => {
    const through = chat(() => cluster.url, "same bytes");
    for (const line of LINES) expect((await through.say(line)).status).toBe(200);
    expect(new Set(through.turns.map((t) => t.servedBy))).toEqual(new Set(["gw1", "gw2", "gw3"]));

    const single = await startSingle();
    const alone = chat(() => single, "same bytes");
    // The single gateway keeps its own state: the conversation is new to it, as it was to the cluster.
    for (const line of LINES) await alone.say(line);
    expect(through.turns.map((t) => t.injected)).toEqual(alone.turns.map((t) => t.injected));
    expect(through.turns.map((t) => t.sent)).toEqual(alone.turns.map((t) => t.sent));
    expect(through.turns.filter((t) => t.injected !== null).length).toBeGreaterThanOrEqual(3);
    expectAppendOnly(through.turns.map((t) => t.sent!));
    expectNoCardTwice(through.turns);
  });

  test("conversations in parallel, each turn on whichever gateway: each stays append-only, no card twice", async () => {
    const chats = Array.from({ length: 12 }, (_, i) => chat(() => cluster.url, `parallel ${i}`));
    for (const line of LINES.slice(0, 6)) {
      const turns = await Promise.all(chats.map((c) => c.say(line)));
      for (const t of turns) expect(t.status).toBe(200);
    }
    for (const c of chats) {
      expectAppendOnly(c.turns.map((t) => t.sent!));
      expectNoCardTwice(c.turns);
      expect(c.turns.filter((t) => t.injected !== null).length).toBeGreaterThanOrEqual(3);
    }
  });

  test(`a card written through the editor's API or MCP is used by every gateway within ${CARD_BOUND_MS} ms`, async () => {
    const store = pg!.store("cluster");
    const ui = Bun.spawn([bin, "ui", "--vault", vault, "--store", store, "--port", "0", "--json"], {
      env: { PATH: process.env.PATH ?? "", HOME: home },
      stdout: "pipe",
      stderr: "pipe",
    });
    const mcp = Bun.spawn(
      [bin, "mcp", "--http", "--vault", vault, "--store", store, "--port", "0", "--json"],
      {
        env: { PATH: process.env.PATH ?? "", HOME: home },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    cleanups.push(
      () => ui.kill(),
      () => mcp.kill(),
    );
    const uiUrl = await firstJsonLine(ui, "ui");
    const mcpUrl = await firstJsonLine(mcp, "mcp");

    const created = await fetch(`${uiUrl}/api/cards`, {
      method: "POST",
      headers: { "x-lorecards": "1", "content-type": "application/json" },
      body: JSON.stringify({
        kind: "thing",
        key: "the lighthouse",
        keywords: ["lighthouse"],
        body: "Red and white.",
      }),
    });
    expect(created.status).toBe(201);
    await everyGatewayInjects("is the lighthouse lit?", "the lighthouse");

    const client = new Client({ name: "cluster-test", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    const written = await client.callTool({
      name: "write_card",
      arguments: {
        mode: "create",
        kind: "place",
        title: "the harbour",
        keywords: ["harbour"],
        sections: [{ heading: "where", text: "Where the ferries come in." }],
      },
    });
    expect(written.isError).not.toBe(true);
    await client.close();
    await everyGatewayInjects("we walked to the harbour", "the harbour");
  });
});

/** A single gateway on the vault's own SQLite state, with its own upstream record in the same upstream. */
async function startSingle(): Promise<string> {
  const proc = Bun.spawn(
    [bin, "gateway", "--vault", vault, "--upstream", upstream.url, "--port", "0", "--json"],
    {
      env: { PATH: process.env.PATH ?? "", HOME: home },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  cleanups.push(async () => {
    proc.kill();
    await proc.exited;
  });
  return firstJsonLine(proc, "gateway");
}

/** After the stated bound, the next request to each gateway (not through HAProxy) injects `card`. */
async function everyGatewayInjects(line: string, card: string): Promise<void> {
  await Bun.sleep(CARD_BOUND_MS);
  for (const node of cluster.nodes) {
    const res = await fetch(`${node.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-lorecards-conversation": `${card} on ${node.name}` },
      body: JSON.stringify(openaiBody({ messages: [{ role: "user", content: line }] })),
    });
    await res.text();
    expect({ node: node.name, injected: res.headers.get("x-lorecards-injected") }).toEqual({
      node: node.name,
      injected: card,
    });
  }
}

describe.skipIf(!ready)("three gateways on Postgres: faults", () => {
  test("a gateway killed mid-conversation: the next turns go to the others, append-only, no card twice", async () => {
    const c = chat(() => cluster.url, "killed gateway");
    for (const line of LINES.slice(0, 3)) expect((await c.say(line)).status).toBe(200);
    const victim = cluster.nodes[1]!;
    await victim.kill9();
    for (const line of LINES.slice(3)) expect((await c.say(line)).status).toBe(200);
    expect(c.turns.slice(3).some((t) => t.servedBy === victim.name)).toBe(false);
    expectAppendOnly(c.turns.map((t) => t.sent!));
    expectNoCardTwice(c.turns);
    expect(c.turns.filter((t) => t.injected !== null).length).toBeGreaterThanOrEqual(3);
    await victim.start();
  });

  test("a gateway killed mid-stream: that answer is cut; the client's retry replays the same bytes elsewhere", async () => {
    const c = chat(() => cluster.url, "killed mid-stream");
    for (const line of LINES.slice(0, 2)) expect((await c.say(line)).status).toBe(200);
    // The third turn streams slowly; the gateway answering it is killed after the first chunk.
    c.messages.push({ role: "user", content: LINES[2]! });
    const before = upstream.received.length;
    const body = JSON.stringify({
      ...openaiBody({ system: `You are a helpful companion. [killed mid-stream]`, messages: c.messages }),
      model: "slow-300",
      stream: true,
    });
    const res = await fetch(`${cluster.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const victim = cluster.nodes.find((n) => n.name === res.headers.get("x-lorecards-served-by"))!;
    const reader = res.body!.getReader();
    await reader.read();
    await victim.kill9();
    let text = "";
    let cut = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    } catch {
      cut = true;
    }
    // The stream is cut short: an error, or an end without the [DONE] the upstream sends last.
    expect(cut || !text.includes("[DONE]")).toBe(true);
    const streamed = upstream.received.slice(before).at(-1)!.body;
    c.messages.pop();
    // The client retries the turn as it was (streaming or not, the request is the same conversation).
    const retry = await c.say(LINES[2]!);
    expect(retry.status).toBe(200);
    expect(retry.servedBy).not.toBe(victim.name);
    expect(JSON.parse(retry.sent!).messages).toEqual(JSON.parse(streamed).messages);
    for (const line of LINES.slice(3)) expect((await c.say(line)).status).toBe(200);
    expectAppendOnly(c.turns.map((t) => t.sent!));
    expectNoCardTwice(c.turns);
    await victim.start();
  });

  test("the database restarted mid-conversation: nothing acknowledged is lost, and no request fails", async () => {
    const c = chat(() => cluster.url, "restarted database");
    for (const line of LINES.slice(0, 4)) expect((await c.say(line)).status).toBe(200);
    const [, during] = await Promise.all([pg!.restart(), c.say(LINES[4]!)]);
    expect(during.status).toBe(200);
    for (const line of LINES.slice(5)) expect((await c.say(line)).status).toBe(200);
    // Every block injected before the restart is replayed after it: its record survived.
    const last = c.turns.at(-1)!.sent!;
    for (const t of c.turns.slice(0, 4))
      for (const card of (t.injected ?? "").split(",").filter(Boolean)) expect(last).toContain(`### ${card}`);
    expectNoCardTwice(c.turns);
  });

  test("the database paused for 10 s: every request is answered (upstream unchanged), then injection resumes where it was", async () => {
    const c = chat(() => cluster.url, "paused database");
    for (const line of LINES.slice(0, 3)) expect((await c.say(line)).status).toBe(200);
    const paused = await pg!.pause();
    const startedAt = Date.now();
    const during: Turn[] = [];
    try {
      while (Date.now() - startedAt < 10_000) during.push(await c.say("and then?"));
    } finally {
      await pg!.resume(paused);
    }
    expect(during.length).toBeGreaterThan(1);
    for (const t of during) {
      expect(t.status).toBe(200);
      expect(t.injected).toBeNull();
    }
    // Once it answers again: the earlier blocks come back, and new cards go in.
    const after = await c.say("we met at the corner cafe");
    expect(after.status).toBe(200);
    expect(after.injected).toBe("the corner cafe");
    for (const t of c.turns.slice(0, 3))
      for (const card of (t.injected ?? "").split(",").filter(Boolean))
        expect(after.sent!).toContain(`### ${card}`);
  }, 60_000);

  test("the database down: requests go upstream unchanged at once; back up, injection resumes where it was", async () => {
    const c = chat(() => cluster.url, "database down");
    for (const line of LINES.slice(0, 3)) expect((await c.say(line)).status).toBe(200);
    await pg!.down();
    try {
      for (const line of LINES.slice(3, 6)) {
        const t = await c.say(line);
        expect([t.status, t.injected]).toEqual([200, null]);
      }
    } finally {
      await pg!.up();
    }
    const after = await c.say("the blue notebook is on the table");
    // Cards named while it was down (still in the scan window) come in now too.
    expect(after.status).toBe(200);
    expect(after.injected?.split(",")).toContain("the blue notebook");
    for (const t of c.turns.slice(0, 3))
      for (const card of (t.injected ?? "").split(",").filter(Boolean))
        expect(after.sent!).toContain(`### ${card}`);
  });

  test("connections cut by the database between and during turns: at most a turn in flight goes unchanged", async () => {
    const c = chat(() => cluster.url, "cut connections");
    const during: number[] = [];
    for (const [i, line] of LINES.entries()) {
      // Between turns every other time, and once in a while while a turn is in flight.
      if (i % 2 === 0) await pg!.cut("lorecards");
      const inFlight = i % 3 === 1;
      if (inFlight) during.push(i);
      const cut = inFlight ? pg!.cut("lorecards") : Promise.resolve(0);
      const [turn] = await Promise.all([c.say(line), cut]);
      expect(turn.status).toBe(200);
    }
    // Which turns went unchanged, by number, so that a failure says which ones.
    const unchanged = c.turns.flatMap((t, i) => (t.sent === t.asked ? [i] : []));
    expect(unchanged).toSatisfy((turns) => turns.length <= during.length);
    const changed = c.turns.filter((t) => t.sent !== t.asked);
    expectAppendOnly(changed.map((t) => t.sent!));
    expectNoCardTwice(c.turns);
    expect(changed.filter((t) => t.injected !== null).length).toBeGreaterThanOrEqual(3);
  });
});
