// Style memory's health score, settings, one-time initialisation and distillation through the compiled
// binary (docs/STYLE-MEMORY.md), as a host and a person would use them: the official MCP client over
// stdio, the CLI with --json, the editor's HTTP API, and the hook's SessionStart with --style-brief,
// whose boot block is what the model receives.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { startUi } from "../support/editor-browser.ts";
import { makeVault, removeDir } from "../support/vault.ts";

setDefaultTimeout(60_000);

let bin = "";
const vaults: string[] = [];
beforeAll(async () => {
  bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
});
afterAll(() => {
  for (const v of vaults) removeDir(v);
});

function vault(): string {
  const v = makeVault([]);
  vaults.push(v);
  return v;
}

async function mcp(root: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--vault", root],
    env: { PATH: process.env.PATH ?? "", HOME: root },
  });
  const client = new Client({ name: "style-seeds-test", version: "0" });
  await client.connect(transport);
  return client;
}

// biome-ignore lint/suspicious/noExplicitAny: each test asserts the fields it needs.
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) throw new Error(JSON.stringify(r.content));
  return r.structuredContent;
}

async function cli(
  root: string,
  args: string[],
  opts: { stdin?: string; env?: Record<string, string> } = {},
) {
  const r = await runBinary([...args, "--vault", root, "--json"], {
    stdin: opts.stdin,
    env: { HOME: root, ...opts.env },
  });
  // biome-ignore lint/suspicious/noExplicitAny: each test asserts the fields it needs.
  return { code: r.code, data: (r.stdout ? JSON.parse(r.stdout) : {}) as any, stderr: r.stderr };
}

async function hook(
  root: string,
  payload: Record<string, unknown>,
  args: string[] = [],
  env: Record<string, string> = {},
) {
  const r = await runBinary(["hook", "--vault", root, ...args], {
    stdin: JSON.stringify({ cwd: root, permission_mode: "default", ...payload }),
    env: { HOME: root, ...env },
  });
  expect(r.code).toBe(0);
  return r.stdout ? (JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string) : "";
}

/** What the model gets at the start of a Claude Code session, with the style brief on. */
function bootBlock(root: string, session: string): Promise<string> {
  return hook(root, { hook_event_name: "SessionStart", session_id: session, source: "startup" }, [
    "--style-brief",
  ]);
}

function prompt(root: string, session: string, text: string, env: Record<string, string> = {}) {
  return hook(root, { hook_event_name: "UserPromptSubmit", session_id: session, prompt: text }, [], env);
}

describe("one-time initialisation over MCP", () => {
  let root = "";
  let client: Client;
  beforeAll(async () => {
    root = vault();
    client = await mcp(root);
  });
  afterAll(async () => {
    await client?.close();
  });

  test("an empty store's brief asks for it, and nothing reaches the model yet", async () => {
    const brief = await tool(client, "style_brief", {});
    expect(brief.initialization).toMatchObject({ state: "needed", max_sessions: 12, max_days: 30 });
    expect(await bootBlock(root, "s-empty")).toBe("");
  });

  test("raw messages, titles, names and unknown fields are refused whole, and nothing is kept", async () => {
    for (const [field, value] of [
      ["messages", ["ship it lol"]],
      ["session_titles", ["Refactor the parser"]],
      ["name", "Ann"],
      ["favourite_food", "pizza"],
    ] as const) {
      const r = await tool(client, "style_admin", {
        action: "init",
        init: { action: "submit", sessions: 4, days: 14, voice: { length: "short" }, [field]: value },
      });
      expect(r).toMatchObject({ status: "refused" });
      expect(r.reason).toContain(`"${field}"`);
    }
    expect((await tool(client, "style_admin", { action: "list" })).habits).toEqual([]);
  });

  test.each([
    ["13 sessions", { sessions: 13 }, "sessions must be a whole number from 1 to 12"],
    ["31 days back", { days: 31 }, "days must be a whole number from 1 to 30"],
    [
      "4 expression candidates",
      { expressions: ["a", "b", "c", "d"].map((signal) => ({ signal })) },
      "expressions is a list of at most 3 candidates",
    ],
  ])("aggregates past the bounds (%s) are refused whole, and nothing is kept", async (_, over, reason) => {
    const r = await tool(client, "style_admin", {
      action: "init",
      init: { action: "submit", sessions: 4, days: 14, voice: { length: "short" }, ...over },
    });
    expect(r).toMatchObject({ status: "refused" });
    expect(r.reason).toContain(reason);
    expect((await tool(client, "style_admin", { action: "list" })).habits).toEqual([]);
    expect((await tool(client, "style_brief", {})).initialization).toMatchObject({ state: "needed" });
  });

  test("bounded aggregates are kept once; the model then gets them in the boot block", async () => {
    const r = await tool(client, "style_admin", {
      action: "init",
      init: {
        action: "submit",
        sessions: 5,
        days: 20,
        voice: { length: "short", case: "lowercase" },
        response_preferences: { structure: "conclusion_first" },
        collaboration_preferences: ["plan, then implement, then verify"],
        expressions: [{ signal: "tiny but mighty" }],
      },
    });
    expect(r.status).toBe("initialized");
    const boot = await bootBlock(root, "s-after-init");
    expect(boot).toContain("prefers the conclusion before the details");
    expect(boot).toContain("plan, then implement, then verify");
    expect(boot).toContain("Keeps messages short");
    // An expression candidate waits for the person: not in front of the model.
    expect(boot).not.toContain("tiny but mighty");
    const again = await tool(client, "style_admin", { action: "init", init: { action: "skip" } });
    expect(again.status).toBe("already");
    expect((await tool(client, "style_brief", {})).initialization).toBeUndefined();
    const state = await cli(root, ["style", "init"]);
    expect(state.data).toMatchObject({ state: "done" });
  });
});

describe("one-time initialisation from the command line", () => {
  test("--skip is kept, and a later submission exits 4 saying it was skipped", async () => {
    const root = vault();
    expect((await cli(root, ["style", "init"])).data.state).toBe("needed");
    expect(await cli(root, ["style", "init", "--skip"])).toMatchObject({
      code: 0,
      data: { status: "skipped" },
    });
    const later = await cli(root, ["style", "init", "--input", "-"], {
      stdin: JSON.stringify({ action: "submit", sessions: 3, days: 7, voice: { length: "long" } }),
    });
    expect(later.code).toBe(4);
    expect(later.data.reason).toContain("initialisation was skipped");
  });

  test("a submission with a raw message exits 5 and keeps nothing", async () => {
    const root = vault();
    const r = await cli(root, ["style", "init", "--input", "-"], {
      stdin: JSON.stringify({ action: "submit", sessions: 3, days: 7, text: "hello there" }),
    });
    expect(r.code).toBe(5);
    expect((await cli(root, ["style", "list"])).data.habits).toEqual([]);
  });
});

describe("distillation", () => {
  test("through MCP and the CLI: candidates behind the gate, reviewed preferences at once", async () => {
    const root = vault();
    const client = await mcp(root);
    try {
      const first = await tool(client, "style_admin", {
        action: "distill",
        conversation: "chat-1",
        expressions: [{ signal: "tiny but mighty", kind: "idiolect" }],
        preferences: ["conclusions before details", "wants tests before code"],
      });
      expect(first.expressions[0]).toMatchObject({ status: "recorded", habit: { state: "candidate" } });
      expect(first.preferences.map((p: { habit: { state: string } }) => p.habit.state)).toEqual([
        "active",
        "active",
      ]);
      const four = await client.callTool({
        name: "style_admin",
        arguments: {
          action: "distill",
          conversation: "chat-1",
          expressions: ["a", "b", "c", "d"].map((signal) => ({ signal })),
        },
      });
      expect(four.isError).toBe(true);
    } finally {
      await client.close();
    }
    let boot = await bootBlock(root, "s-1");
    expect(boot).toContain("conclusions before details");
    expect(boot).not.toContain("tiny but mighty");
    const second = await cli(root, ["style", "distill", "--conversation", "chat-2", "--input", "-"], {
      stdin: JSON.stringify({ expressions: [{ signal: "tiny but mighty" }] }),
    });
    expect(second.code).toBe(0);
    expect(second.data.expressions[0].habit).toMatchObject({ state: "active", conversations: 2 });
    boot = await bootBlock(root, "s-2");
    expect(boot).toContain('"tiny but mighty"');
    const refused = await cli(root, ["style", "distill", "--conversation", "chat-3", "--input", "-"], {
      stdin: JSON.stringify({ preferences: ["is an introvert"] }),
    });
    expect(refused.code).toBe(5);
    const nine = await cli(root, ["style", "distill", "--conversation", "chat-4", "--input", "-"], {
      stdin: JSON.stringify({ preferences: Array.from({ length: 9 }, (_, i) => `reviewed preference ${i}`) }),
    });
    expect(nine.code).toBe(5);
    expect(nine.data.detail).toBe("at most 8 preferences per call");
    expect(await bootBlock(root, "s-3")).not.toContain("reviewed preference");
  });
});

describe("the health score, the same on the CLI, MCP and the API", () => {
  test("readiness, drift, over-imitation and the refresh advice", async () => {
    const root = vault();
    for (const session of ["a", "b"]) await prompt(root, session, "no cap ngl, lowkey the best 😭");
    const byCli = await cli(root, ["style", "score"]);
    expect(byCli.code).toBe(0);
    expect(byCli.data.readiness).toMatchObject({ level: "ready" });
    expect(byCli.data.brief.refresh_recommended).toBe(true);
    const client = await mcp(root);
    let ui: Awaited<ReturnType<typeof startUi>> | undefined;
    try {
      const byMcp = await tool(client, "style_admin", { action: "score" });
      ui = await startUi(root);
      const byApi = await (await fetch(`${ui.url}/api/style/score`)).json();
      expect(byMcp).toEqual(byCli.data);
      expect(byApi).toEqual(byCli.data);
      // Once the brief is handed out, no refresh is needed; a caller on an older revision is told to.
      const brief = await tool(client, "style_brief", {});
      expect((await cli(root, ["style", "score"])).data.brief.refresh_recommended).toBe(false);
      const old = await (await fetch(`${ui.url}/api/style/score?since=${brief.revision - 1}`)).json();
      expect(old.brief).toMatchObject({ since: brief.revision - 1, refresh_recommended: true });
    } finally {
      await client.close();
      await ui?.stop();
    }
    // A hundred days later every habit is fading: drift is high and the score halves.
    const later = await cli(root, ["style", "score"], {
      env: { LORECARDS_STYLE_NOW: String(Date.now() + 100 * 86_400_000) },
    });
    expect(later.data.drift).toMatchObject({ level: "high" });
    expect(later.data.score).toBeLessThanOrEqual(50);
  });
});

describe("settings in settings.yaml and the environment", () => {
  test("the hook applies them, and check reports each with where it came from", async () => {
    const root = vault();
    fs.writeFileSync(path.join(root, "settings.yaml"), "style:\n  promote_count: 3\n  example_length: 14\n");
    const env = { STYLE_MEMORY_CANDIDATE_TTL_DAYS: "5" };
    await prompt(root, "a", "honestly no cap that pizza was great", env);
    await prompt(root, "b", "no cap", env);
    let noCap = (await cli(root, ["style", "list"], { env })).data.habits.find(
      (h: { signal: string }) => h.signal === "no cap",
    );
    // Two sightings in two conversations: active by default, still a candidate at promote_count 3.
    expect(noCap).toMatchObject({ state: "candidate", count: 2 });
    expect(noCap.example.length).toBeLessThanOrEqual(14);
    await prompt(root, "b", "no cap fr", env);
    noCap = (await cli(root, ["style", "list"], { env })).data.habits.find(
      (h: { signal: string }) => h.signal === "no cap",
    );
    expect(noCap.state).toBe("active");
    // The environment's TTL: a candidate unseen for six days is gone.
    const sixDays = { ...env, LORECARDS_STYLE_NOW: String(Date.now() + 6 * 86_400_000) };
    const left = (await cli(root, ["style", "list"], { env: sixDays })).data.habits;
    expect(left.filter((h: { state: string }) => h.state === "candidate")).toEqual([]);

    const check = await cli(root, ["check"], { env: { ...env, STYLE_MEMORY_MAX_BRIEF_ITEMS: "many" } });
    expect(check.data.style.settings).toMatchObject({
      promote_count: 3,
      example_length: 14,
      candidate_ttl_days: 5,
    });
    expect(check.data.style.sources).toMatchObject({
      promote_count: "settings.yaml",
      candidate_ttl_days: "$STYLE_MEMORY_CANDIDATE_TTL_DAYS",
      inactive_ttl_days: "default",
    });
    expect(check.data.findings).toContainEqual(
      expect.objectContaining({ code: "bad_setting", card: "$STYLE_MEMORY_MAX_BRIEF_ITEMS" }),
    );
    const text = await runBinary(["check", "--vault", root], { env: { HOME: root, ...env } });
    expect(text.stdout).toContain("Style memory settings:");
    expect(text.stdout).toContain(
      "candidate_ttl_days: 5: days a candidate is kept unseen (from $STYLE_MEMORY_CANDIDATE_TTL_DAYS)",
    );
  });

  test("a bad value in settings.yaml is a check warning naming the key; learning goes on with the default", async () => {
    const root = vault();
    fs.writeFileSync(path.join(root, "settings.yaml"), "style:\n  promote_count: once\n");
    const check = await cli(root, ["check"]);
    expect(check.data.findings).toContainEqual(
      expect.objectContaining({
        code: "bad_setting",
        card: "settings.yaml",
        detail: expect.stringContaining("style.promote_count"),
      }),
    );
    for (const s of ["a", "b"]) await prompt(root, s, "no cap");
    const habits = (await cli(root, ["style", "list"])).data.habits;
    expect(habits.find((h: { signal: string }) => h.signal === "no cap")?.state).toBe("active");
  });

  test("$STYLE_MEMORY_LEARNING=off learns nothing, as --no-learn", async () => {
    const root = vault();
    await prompt(root, "a", "no cap", { STYLE_MEMORY_LEARNING: "off" });
    expect((await cli(root, ["style", "list"])).data.habits).toEqual([]);
  });
});
