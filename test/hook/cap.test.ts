// Claude Code's context cap, applied by recall's budget stage: what it leaves out is not recorded.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { runHook } from "../../src/hook/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let vault = "";
beforeEach(() => {
  vault = makeVault();
  fs.writeFileSync(
    path.join(vault, "people", "Big.md"),
    `---\nkeywords: [huge]\n---\n${"big ".repeat(1500)}\n`,
  );
  fs.writeFileSync(
    path.join(vault, "people", "Bigger.md"),
    `---\nkeywords: [huge]\n---\n${"bigger ".repeat(900)}\n`,
  );
});
afterEach(() => removeDir(vault));

const prompt = (text: string) =>
  JSON.stringify({ hook_event_name: "UserPromptSubmit", session_id: "s1", cwd: "/tmp", prompt: text });

describe("the hook's output cap", () => {
  test("a card the cap left out is not recorded as in context: it goes in on the next prompt", async () => {
    const options = { vaultRoot: vault, budget: 100_000, log: false };
    expect((await runHook(prompt("huge"), options)).injected).toEqual(["Big"]);
    expect((await runHook(prompt("huge"), options)).injected).toEqual(["Bigger"]);
    expect((await runHook(prompt("huge"), options)).injected).toEqual([]);
  });
});
