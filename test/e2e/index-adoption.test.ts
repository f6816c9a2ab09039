// Index mode and adoption through the compiled binary (README "Index mode and adoption"): the exact
// block the hook prints, `try --inject index` shows and the gateway sends upstream (and replays);
// an adoption recorded through the real MCP SDK client over stdio; and the classes `stats --cards`
// and `check` compute from a recorded history.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { markersOf, vaultStore } from "../support/state.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let bin = "";
/** A time on the wire (src/wire.ts). */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const vaults: string[] = [];
beforeAll(async () => {
  bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
});
afterAll(() => {
  for (const v of vaults) removeDir(v);
});

function vault(): string {
  const v = makeVault();
  vaults.push(v);
  return v;
}

const HEADER = (session: string, query: string) =>
  `Memory index (session: ${session}, query: ${query}). Open a card with read_card(name, session, query).\n` +
  "score | card | words that fired it\n";

/** The query id a block names. */
function queryOf(text: string): string {
  const m = /, query: (q[0-9a-f]{12})\)\. /.exec(text);
  if (!m) throw new Error(`no query id in ${JSON.stringify(text)}`);
  return m[1]!;
}

function hookPayload(session: string, prompt: string): string {
  return JSON.stringify({ session_id: session, hook_event_name: "UserPromptSubmit", prompt, cwd: "/tmp" });
}

describe("the index block", () => {
  test("the hook prints it between our markers: a header with the session and query, one line per card", async () => {
    const v = vault();
    const r = await runBinary(["hook", "--inject", "index", "--vault", v], {
      stdin: hookPayload("idx-1", "how did the friday deploy go? ask alice"),
    });
    expect(r.code).toBe(0);
    const context: string = JSON.parse(r.stdout).hookSpecificOutput.additionalContext;
    const query = queryOf(context);
    const m = await markersOf(v);
    expect(context).toBe(
      `${m.open}\n${HEADER("hook:idx-1", query)}` +
        "6 | event/the Friday deploy | the friday deploy, friday deploy, deploy\n" +
        "2 | people/Alice | alice\n" +
        `${m.close}`,
    );
    const store = await vaultStore(v);
    expect(await store.findRecall("hook:idx-1", query)).toEqual({
      session: "hook:idx-1",
      query,
      at: expect.any(Number),
      surface: "hook",
      cards: ["event/the Friday deploy", "people/Alice"],
      opened: {},
    });
    await store.close();
  });

  test("each prompt gets a new query id; a card listed is in context and not listed again", async () => {
    const v = vault();
    const run = (prompt: string) =>
      runBinary(["hook", "--inject", "index", "--vault", v], { stdin: hookPayload("idx-2", prompt) });
    const first = JSON.parse((await run("alice")).stdout).hookSpecificOutput.additionalContext;
    const second = JSON.parse((await run("alice at the corner cafe")).stdout).hookSpecificOutput
      .additionalContext;
    expect(queryOf(first)).not.toBe(queryOf(second));
    expect(second).toContain("6 | place/the corner cafe | the corner cafe, corner cafe, cafe\n");
    expect(second).not.toContain("people/Alice");
  });

  test("try --inject index shows it (no markers), says its ids in --json, and records nothing without --log", async () => {
    const v = vault();
    const r = await runBinary(["try", "the friday deploy", "--inject", "index", "--json", "--vault", v]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.index).toEqual({ session: "try", query: expect.stringMatching(/^q[0-9a-f]{12}$/) });
    expect(out.context).toBe(
      `${HEADER("try", out.index.query)}6 | event/the Friday deploy | the friday deploy, friday deploy, deploy\n`,
    );
    expect(out.injected).toEqual(["the Friday deploy"]);
    const store = await vaultStore(v);
    expect(await store.findRecall("try", out.index.query)).toBeNull();
    const logged = JSON.parse(
      (await runBinary(["try", "alice", "--inject", "index", "--log", "--json", "--vault", v])).stdout,
    );
    expect((await store.findRecall("try", logged.index.query))?.cards).toEqual(["people/Alice"]);
    await store.close();
  });

  describe("the gateway", () => {
    let upstream: FakeUpstream;
    let gateway: Bun.Subprocess<"ignore", "pipe", "pipe">;
    let base = "";
    let v = "";
    beforeAll(async () => {
      v = vault();
      upstream = startFakeUpstream({ reply: () => "Noted." });
      gateway = Bun.spawn(
        [
          bin,
          "gateway",
          "--inject",
          "index",
          "--vault",
          v,
          "--upstream",
          upstream.url,
          "--port",
          "0",
          "--json",
        ],
        { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "", HOME: v } },
      );
      const reader = gateway.stdout.getReader();
      let out = "";
      while (!out.includes("\n")) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`the gateway exited before listening: ${out}`);
        out += new TextDecoder().decode(value);
      }
      reader.releaseLock();
      base = JSON.parse(out.slice(0, out.indexOf("\n"))).url;
    });
    afterAll(async () => {
      gateway?.kill();
      await gateway?.exited;
      await upstream?.close();
    });

    async function chat(messages: { role: string; content: string }[]) {
      const res = await fetch(`${base}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-lorecards-conversation": "chat-7" },
        body: JSON.stringify({ model: "m", messages }),
      });
      expect(res.status).toBe(200);
      await res.text();
      return JSON.parse(upstream.received.at(-1)!.body).messages as { role: string; content: string }[];
    }

    test("it goes upstream in front of the newest user message, and is replayed byte for byte", async () => {
      const m = await markersOf(v);
      const asked = "ask alice about the friday deploy";
      const sent = await chat([{ role: "user", content: asked }]);
      const query = queryOf(sent[0]!.content);
      const block =
        `${m.open}\n${HEADER("chat-7", query)}` +
        "6 | event/the Friday deploy | the friday deploy, friday deploy, deploy\n" +
        "2 | people/Alice | alice\n" +
        `${m.close}`;
      expect(sent).toEqual([{ role: "user", content: `${block}\n\n${asked}` }]);

      const next = await chat([
        { role: "user", content: asked },
        { role: "assistant", content: "Noted." },
        { role: "user", content: "and the corner cafe?" },
      ]);
      expect(next[0]).toEqual({ role: "user", content: `${block}\n\n${asked}` });
      const again = queryOf(next[2]!.content);
      expect(again).not.toBe(query);
      expect(next[2]!.content).toBe(
        `${m.open}\n${HEADER("chat-7", again)}6 | place/the corner cafe | the corner cafe, corner cafe, cafe\n${m.close}\n\nand the corner cafe?`,
      );
      // A retry of the turn sends the same bytes, and asks recall nothing: no new query id.
      const retried = await chat([
        { role: "user", content: asked },
        { role: "assistant", content: "Noted." },
        { role: "user", content: "and the corner cafe?" },
      ]);
      expect(retried).toEqual(next);
      const store = await vaultStore(v);
      expect((await store.cardUsage(0)).recalls).toBe(2);
      expect((await store.findRecall("chat-7", query))?.cards).toEqual([
        "event/the Friday deploy",
        "people/Alice",
      ]);
      expect((await store.findRecall("chat-7", again))?.surface).toBe("gateway");
      await store.close();
    });
  });
});

describe("adoption through the MCP server", () => {
  test("read_card with the block's ids records the card as opened from that recall", async () => {
    const v = vault();
    const hooked = await runBinary(["hook", "--inject", "index", "--vault", v], {
      stdin: hookPayload("idx-mcp", "alice and the friday deploy"),
    });
    const query = queryOf(JSON.parse(hooked.stdout).hookSpecificOutput.additionalContext);
    const transport = new StdioClientTransport({
      command: bin,
      args: ["mcp", "--vault", v],
      env: { PATH: process.env.PATH ?? "", HOME: v },
      stderr: "pipe",
    });
    const client = new Client({ name: "lorecards-e2e", version: "0" });
    await client.connect(transport);
    try {
      const read = async (args: Record<string, unknown>) => {
        const r = (await client.callTool({ name: "read_card", arguments: args })) as CallToolResult;
        return r.structuredContent as { key: string; adoption?: Record<string, string> };
      };
      const first = await read({ name: "people/Alice", session: "hook:idx-mcp", query });
      expect(first.key).toBe("Alice");
      expect(first.adoption).toEqual({
        status: "recorded",
        card: "people/Alice",
        session: "hook:idx-mcp",
        query,
      });
      expect((await read({ name: "Alice", session: "hook:idx-mcp", query })).adoption?.status).toBe(
        "repeated",
      );
      expect((await read({ name: "the corner cafe", session: "hook:idx-mcp", query })).adoption?.status).toBe(
        "not_listed",
      );
      expect((await read({ name: "Alice" })).adoption).toBeUndefined();
    } finally {
      await client.close();
    }
    const store = await vaultStore(v);
    expect(Object.keys((await store.findRecall("hook:idx-mcp", query))!.opened)).toEqual(["people/Alice"]);
    await store.close();
  });
});

describe("classes from a recorded history", () => {
  const DAY = 86_400_000;

  async function seedHistory(v: string): Promise<void> {
    const store = await vaultStore(v);
    const now = Date.now();
    let n = 0;
    const recall = async (daysAgo: number, cards: string[], opened: string[] = []) => {
      const query = `q${String(++n).padStart(12, "0")}`;
      await store.recordRecall({ session: "hook:h", query, at: now - daysAgo * DAY, surface: "hook", cards });
      for (const card of opened) await store.recordAdoption({ session: "hook:h", query, card, at: now });
    };
    // Alice: listed 12 times, opened once (noisy). The corner cafe: 4 times, never opened
    // (underperforming). The Friday deploy: twice, opened both times (healthy). The blue notebook:
    // only 40 days ago (dead now); 小林 never (dead).
    for (let i = 0; i < 12; i++) {
      const cards = ["people/Alice", ...(i < 4 ? ["place/the corner cafe"] : [])];
      await recall(1 + i, cards, i === 0 ? ["people/Alice"] : []);
    }
    await recall(2, ["event/the Friday deploy"], ["event/the Friday deploy"]);
    await recall(3, ["event/the Friday deploy"], ["event/the Friday deploy"]);
    await recall(40, ["thing/the blue notebook"], ["thing/the blue notebook"]);
    await store.close();
  }

  test("stats --cards --json, check --json and check in words say the same", async () => {
    const v = vault();
    await seedHistory(v);
    const stats = await runBinary(["stats", "--cards", "--json", "--vault", v]);
    expect(stats.code).toBe(0);
    const report = JSON.parse(stats.stdout);
    expect(report).toMatchObject({
      window_days: 30,
      recalls: 14,
      counts: { dead: 2, noisy: 1, underperforming: 1, healthy: 1 },
    });
    expect(report.cards.map((c: { card: string; class: string }) => [c.class, c.card])).toEqual([
      ["dead", "people/小林"],
      ["dead", "thing/the blue notebook"],
      ["noisy", "people/Alice"],
      ["underperforming", "place/the corner cafe"],
      ["healthy", "event/the Friday deploy"],
    ]);
    expect(report.cards.find((c: { card: string }) => c.card === "people/Alice")).toMatchObject({
      recalled: 12,
      opened: 1,
      open_rate: 1 / 12,
      last_seen: expect.stringMatching(ISO_TIME),
      last_opened: expect.stringMatching(ISO_TIME),
    });

    const check = await runBinary(["check", "--json", "--vault", v]);
    // The same report, but for its window's start: a few milliseconds later.
    const { since, ...recall } = JSON.parse(check.stdout).recall;
    expect({ ...recall, since: report.since }).toEqual(report);
    expect(Date.parse(since)).toBeGreaterThanOrEqual(Date.parse(report.since));
    const words = await runBinary(["check", "--vault", v]);
    expect(words.code).toBe(0);
    expect(words.stdout).toContain(
      "Recall health, last 30 days (14 index recall(s)): 2 dead, 1 noisy, 1 underperforming, 1 healthy.",
    );
    expect(words.stdout).toContain("noisy           people/Alice: listed 12, opened 1 (8%)");
    expect(words.stdout).toContain("dead (listed in no recall): people/小林, thing/the blue notebook");
  });

  test("stats --cards with no recall judges nothing, and refuses --days", async () => {
    const v = vault();
    const r = await runBinary(["stats", "--cards", "--json", "--vault", v]);
    expect(JSON.parse(r.stdout)).toMatchObject({ recalls: 0, cards: [] });
    const words = await runBinary(["stats", "--cards", "--vault", v]);
    expect(words.stdout).toContain("No index recalls in the last 30 days");
    const refused = await runBinary(["stats", "--cards", "--days", "3", "--vault", v]);
    expect(refused.code).toBe(2);
  });
});
