import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { MAX_CONTEXT_CHARS, runHook } from "../../src/hook/index.ts";
import { cardVersion } from "../../src/recall/index.ts";
import { EDITED_NOTE } from "../../src/recall/stages/render.ts";
import { recentHitsOf, vaultStore } from "../support/state.ts";
import { makeVault, removeDir } from "../support/vault.ts";

const FIXTURE = path.join(import.meta.dir, "fixtures", "transcript.jsonl");

let vault = "";
beforeEach(() => {
  vault = makeVault();
});
afterEach(() => removeDir(vault));

function prompt(text: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    hook_event_name: "UserPromptSubmit",
    session_id: "s1",
    cwd: "/tmp",
    prompt: text,
    ...extra,
  });
}

function contextOf(stdout: string): string {
  if (stdout === "") return "";
  const out = JSON.parse(stdout);
  expect(out.hookSpecificOutput.hookEventName).toBe("UserPromptSubmit");
  return out.hookSpecificOutput.additionalContext as string;
}

async function keys(stdin: string, opts: Partial<Parameters<typeof runHook>[1]> = {}): Promise<string[]> {
  return (await runHook(stdin, { vaultRoot: vault, log: false, ...opts })).injected;
}

describe("what the hook answers", () => {
  test("a matching prompt gets the card as additionalContext, framed and between our markers", async () => {
    const result = await runHook(prompt("how did the friday deploy go?"), { vaultRoot: vault });
    const context = contextOf(result.stdout);
    expect(context).toMatch(
      /^<!-- lorecards:[0-9a-f]{12} -->\nA memory surfaces:\n\n### the Friday deploy \[event\]\n/,
    );
    expect(context).toContain("Every Friday afternoon");
    expect(result.stdout.endsWith("}\n")).toBe(true);
  });

  test("each card sent is recorded with its version, the hash of its text, as every surface records it", async () => {
    const context = contextOf(
      (await runHook(prompt("how did the friday deploy go?"), { vaultRoot: vault })).stdout,
    );
    const text = `${context.slice(context.indexOf("### "), context.lastIndexOf("\n<!-- /lorecards:"))}\n`;
    const store = await vaultStore(vault);
    const { injections } = await store.loadConversation("hook:s1");
    await store.close();
    expect(injections.map((i) => [i.id, i.version])).toEqual([
      ["event/the Friday deploy", cardVersion(text)],
    ]);
  });

  test("a prompt that matches nothing gets an empty answer", async () => {
    expect(await runHook(prompt("the weather is nice"), { vaultRoot: vault })).toEqual({
      stdout: "",
      injected: [],
    });
  });

  test.each([
    [
      "SessionStart in a vault with no guide and no always-on card",
      { hook_event_name: "SessionStart", source: "startup", session_id: "s1" },
    ],
    ["another event", { hook_event_name: "Stop", session_id: "s1", prompt: "friday deploy" }],
    ["an empty prompt", { hook_event_name: "UserPromptSubmit", session_id: "s1", prompt: "   " }],
  ])("%s gets an empty answer", async (_, payload) => {
    expect((await runHook(JSON.stringify(payload), { vaultRoot: vault })).stdout).toBe("");
  });

  test("recent turns from the transcript count: the cafe mentioned one turn ago fires", async () => {
    const injected = await keys(prompt("sounds good", { transcript_path: FIXTURE }));
    expect(injected.sort()).toEqual(["Alice", "the corner cafe"]);
  });

  test("tool output, meta messages and turns before a compaction do not fire cards", async () => {
    const injected = await keys(prompt("sounds good", { transcript_path: FIXTURE }), { scanDepth: 10 });
    expect(injected).not.toContain("the blue notebook");
    expect(injected).not.toContain("小林");
  });

  test("an unreadable transcript is no history, not an error", async () => {
    expect(
      await keys(prompt("friday deploy", { transcript_path: path.join(vault, "missing.jsonl") })),
    ).toEqual(["the Friday deploy"]);
  });

  test("our own earlier block inside the transcript does not fire its cards again", async () => {
    const first = contextOf(
      (await runHook(prompt("friday deploy", { session_id: "a" }), { vaultRoot: vault })).stdout,
    );
    const transcript = path.join(vault, "t.jsonl");
    fs.writeFileSync(
      transcript,
      `${JSON.stringify({ type: "user", message: { content: `${first}\n\nok` } })}\n`,
    );
    expect(await keys(prompt("and then?", { session_id: "b", transcript_path: transcript }))).toEqual([]);
  });

  test("cards that would overflow Claude Code's 10,000-character cap are left out, whatever the budget", async () => {
    fs.writeFileSync(
      path.join(vault, "people", "Big.md"),
      `---\nkeywords: [huge]\n---\n## who\n${"big ".repeat(1500)}\n`,
    );
    fs.writeFileSync(
      path.join(vault, "people", "Bigger.md"),
      `---\nkeywords: [huge]\n---\n## who\n${"bigger ".repeat(900)}\n`,
    );
    const result = await runHook(prompt("huge"), { vaultRoot: vault, budget: 100_000 });
    expect(contextOf(result.stdout).length).toBeLessThanOrEqual(MAX_CONTEXT_CHARS);
    expect(result.injected).toEqual(["Big"]);
  });

  test("a single card longer than the cap is cut to fit, marked with an ellipsis", async () => {
    fs.writeFileSync(
      path.join(vault, "people", "Huge.md"),
      `---\nkeywords: [huge]\n---\n## who\n${"word 😀 ".repeat(4000)}\n`,
    );
    const result = await runHook(prompt("huge"), { vaultRoot: vault });
    const context = contextOf(result.stdout);
    expect(context.length).toBeLessThanOrEqual(MAX_CONTEXT_CHARS);
    expect(context.length).toBeGreaterThan(MAX_CONTEXT_CHARS - 50);
    expect(context).toMatch(/…\n<!-- \/lorecards:[0-9a-f]{12} -->$/);
    expect(result.injected).toEqual(["Huge"]);
  });
});

describe("dedupe across the prompts of one session", () => {
  test("a card injected at turn n is not injected again before turn n + reinject-after", async () => {
    const seen: string[][] = [];
    for (let i = 0; i < 5; i++) seen.push(await keys(prompt("friday deploy"), { reinjectAfter: 3 }));
    expect(seen).toEqual([["the Friday deploy"], [], [], ["the Friday deploy"], []]);
  });

  test("the clock advances on every prompt, matching or not", async () => {
    expect(await keys(prompt("friday deploy"), { reinjectAfter: 2 })).toEqual(["the Friday deploy"]);
    expect(await keys(prompt("nothing here"), { reinjectAfter: 2 })).toEqual([]);
    expect(await keys(prompt("friday deploy"), { reinjectAfter: 2 })).toEqual(["the Friday deploy"]);
  });

  test("a card edited since the session was sent it goes again, once, saying it replaces the earlier text", async () => {
    const file = path.join(vault, "events", "the Friday deploy.md");
    const first = contextOf(
      (await runHook(prompt("friday deploy"), { vaultRoot: vault, log: false })).stdout,
    );
    expect(first).toContain("Every Friday afternoon");
    expect(first).not.toContain(EDITED_NOTE);
    // Written in place, as an editor saves: the folder's listing does not change.
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("Every Friday", "Every Monday"));
    const again = contextOf(
      (await runHook(prompt("friday deploy"), { vaultRoot: vault, log: false })).stdout,
    );
    expect(again).toContain(`### the Friday deploy [event]\n${EDITED_NOTE}\n`);
    expect(again).toContain("Every Monday afternoon");
    // The new text is the one in context now: not sent a third time.
    expect(await keys(prompt("friday deploy"))).toEqual([]);
  });

  test("an edit the model never reads (a private section, `correspondence` by default) sends nothing again", async () => {
    const file = path.join(vault, "events", "the Friday deploy.md");
    expect(await keys(prompt("friday deploy"))).toEqual(["the Friday deploy"]);
    fs.appendFileSync(file, "\n## correspondence\nOnly for me.\n");
    expect(await keys(prompt("friday deploy"))).toEqual([]);
  });

  test("--reinject-after 0 injects on every match", async () => {
    for (let i = 0; i < 3; i++)
      expect(await keys(prompt("friday deploy"), { reinjectAfter: 0 })).toEqual(["the Friday deploy"]);
  });

  test("another session is another conversation", async () => {
    expect(await keys(prompt("friday deploy", { session_id: "one" }))).toEqual(["the Friday deploy"]);
    expect(await keys(prompt("friday deploy", { session_id: "two" }))).toEqual(["the Friday deploy"]);
  });

  test("a card already in context is set aside and the next one gets the room", async () => {
    expect(await keys(prompt("friday deploy"))).toEqual(["the Friday deploy"]);
    expect(await keys(prompt("friday deploy and alice"))).toEqual(["Alice"]);
  });

  test.each(["compact", "clear"])("a SessionStart after %s forgets what was injected", async (source) => {
    expect(await keys(prompt("friday deploy"))).toEqual(["the Friday deploy"]);
    expect(await keys(prompt("friday deploy"))).toEqual([]);
    await runHook(JSON.stringify({ hook_event_name: "SessionStart", session_id: "s1", source }), {
      vaultRoot: vault,
    });
    expect(await keys(prompt("friday deploy"))).toEqual(["the Friday deploy"]);
  });

  test("a SessionStart on resume keeps the ledger: the cards are still in the transcript", async () => {
    expect(await keys(prompt("friday deploy"))).toEqual(["the Friday deploy"]);
    await runHook(JSON.stringify({ hook_event_name: "SessionStart", session_id: "s1", source: "resume" }), {
      vaultRoot: vault,
    });
    expect(await keys(prompt("friday deploy"))).toEqual([]);
  });
});

describe("the hit log", () => {
  test("a surfacing is logged with source hook, the keys, the words and the prompt", async () => {
    await runHook(prompt("How did the Friday deploy go?"), {
      vaultRoot: vault,
      now: () => new Date("2026-09-20T10:00:00Z"),
    });
    expect(await recentHitsOf(vault, 10)).toEqual([
      {
        time: "2026-09-20T10:00:00.000Z",
        source: "hook",
        keys: ["the Friday deploy"],
        words: ["the friday deploy", "friday deploy", "deploy"],
        message: "How did the Friday deploy go?",
      },
    ]);
  });

  test("--no-log writes no hit log, and dedupe still works", async () => {
    expect(await keys(prompt("friday deploy"), { log: false })).toEqual(["the Friday deploy"]);
    expect(await keys(prompt("friday deploy"), { log: false })).toEqual([]);
    expect(fs.existsSync(path.join(vault, ".lorecards", "hits.jsonl"))).toBe(false);
  });

  test("nothing matched, nothing logged", async () => {
    await runHook(prompt("quiet day"), { vaultRoot: vault });
    expect(await recentHitsOf(vault, 10)).toEqual([]);
  });
});
