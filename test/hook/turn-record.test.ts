/**
 * The hook keeps a turn record of every prompt of a session (README "What it costs"): its
 * additionalContext as one volatile block, the cards left out, and no usage (none reaches a hook).
 */

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { runHook } from "../../src/hook/index.ts";
import { vaultStore } from "../support/state.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let vault = "";
beforeEach(() => {
  vault = makeVault();
});
afterEach(() => removeDir(vault));

const prompt = (text: string, session = "s1") =>
  JSON.stringify({ hook_event_name: "UserPromptSubmit", session_id: session, cwd: "/tmp", prompt: text });

async function turnsOf(conversation: string) {
  const store = await vaultStore(vault);
  try {
    return await store.turns(conversation, 10);
  } finally {
    await store.close();
  }
}

describe("the hook's turn records", () => {
  test("a prompt that gets cards is recorded with its additionalContext as one volatile block", async () => {
    const at = new Date("2025-03-01T12:00:00Z");
    const result = await runHook(prompt("how is alice?"), { vaultRoot: vault, log: false, now: () => at });
    const context = JSON.parse(result.stdout).hookSpecificOutput.additionalContext as string;
    expect(await turnsOf("hook:s1")).toEqual([
      {
        conversation: "hook:s1",
        turn: 1,
        at: at.getTime(),
        surface: "hook",
        blocks: [{ tier: "volatile", where: "additionalContext", text: context, cards: ["people/Alice"] }],
        replayedChars: 0,
        leftOut: [],
        promptChars: "how is alice?".length + context.length,
        counterfactual: { promptChars: "how is alice?".length + context.length, cachedChars: 0 },
        sharedChars: 0,
      },
    ]);
  });

  test("a prompt that fires a card is a turn; one that fires none is not recorded", async () => {
    await runHook(prompt("how is alice?"), { vaultRoot: vault, log: false });
    await runHook(prompt("the weather is nice"), { vaultRoot: vault, log: false });
    await runHook(prompt("and the friday deploy?"), { vaultRoot: vault, log: false });
    const turns = await turnsOf("hook:s1");
    expect(turns.map((t) => [t.turn, t.blocks.length, t.usage])).toEqual([
      [1, 1, undefined],
      [3, 1, undefined],
    ]);
  });

  test("cards left out by the budget are listed with why", async () => {
    await runHook(prompt("alice went to the corner cafe after the friday deploy"), {
      vaultRoot: vault,
      log: false,
      budget: 10,
    });
    const [turn] = await turnsOf("hook:s1");
    expect(turn!.blocks[0]!.cards).toHaveLength(1);
    expect(turn!.leftOut.length).toBeGreaterThan(0);
    expect(turn!.leftOut.every((l) => l.reason === "budget")).toBe(true);
  });

  test("a prompt without a session records nothing", async () => {
    const stdin = JSON.stringify({
      hook_event_name: "UserPromptSubmit",
      cwd: "/tmp",
      prompt: "how is alice?",
    });
    await runHook(stdin, { vaultRoot: vault, log: false });
    const store = await vaultStore(vault);
    try {
      expect(await store.conversations(10)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
