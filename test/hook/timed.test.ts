// Timed effects in the hook: the session keeps recall's memory in its ledger, on the clock of its prompts,
// and the surface's options (names, token budget) reach recall.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { runHook } from "../../src/hook/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let vault = "";
beforeEach(() => {
  vault = makeVault();
  fs.writeFileSync(
    path.join(vault, "people", "Lyra.md"),
    "---\nkeywords: [Lyra]\nsticky: 3\n---\n{{user}} met Lyra.\n",
  );
});
afterEach(() => removeDir(vault));

const prompt = (text: string, session = "s1") =>
  JSON.stringify({ hook_event_name: "UserPromptSubmit", session_id: session, cwd: "/tmp", prompt: text });

describe("timed effects in the hook", () => {
  test("a sticky card comes back on the next prompt of its session, which does not name it, and then stops", async () => {
    // Every prompt may inject again, and only the current prompt is scanned: stickiness alone brings it back.
    const options = { vaultRoot: vault, log: false, reinjectAfter: 0, scanDepth: 0 };
    expect((await runHook(prompt("where is Lyra?"), options)).injected).toEqual(["Lyra"]);
    expect((await runHook(prompt("and then?"), options)).injected).toEqual(["Lyra"]); // message 3 < 1 + 3
    expect((await runHook(prompt("what else?"), options)).injected).toEqual([]); // message 5: over
    expect((await runHook(prompt("and then?", "other"), options)).injected).toEqual([]);
  });

  test("names given to the hook fill the card's macros", async () => {
    const r = await runHook(prompt("Lyra?"), {
      vaultRoot: vault,
      log: false,
      recall: { names: { user: "Ann" } },
    });
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain("Ann met Lyra.");
  });
});
