// The hook with `--inject index` (README "Index mode and adoption"), in process: a prompt without a
// session still gets its index (under session `none`), and a recall that cannot be recorded costs the
// prompt nothing but a line on stderr. What the index holds and how its budget counts lines rather than
// text is recall's, tested once for every surface (test/recall/index-block.test.ts).
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { runHook } from "../../src/hook/index.ts";
import { statePath } from "../../src/state/index.ts";
import { vaultStore } from "../support/state.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let vault = "";
beforeEach(() => {
  vault = makeVault();
});
afterEach(() => removeDir(vault));

function prompt(text: string, session?: string): string {
  return JSON.stringify({
    hook_event_name: "UserPromptSubmit",
    session_id: session,
    cwd: "/tmp",
    prompt: text,
  });
}

function contextOf(stdout: string): string {
  return JSON.parse(stdout).hookSpecificOutput.additionalContext as string;
}

describe("the hook in index mode", () => {
  test("a prompt without a session id is listed under session none, and recorded", async () => {
    const result = await runHook(prompt("ask alice"), { vaultRoot: vault, inject: "index", log: false });
    const context = contextOf(result.stdout);
    const query = /query: (q[0-9a-f]{12})\)/.exec(context)![1]!;
    expect(context).toContain(`Memory index (session: none, query: ${query}).`);
    expect(result.injected).toEqual(["Alice"]);
    const store = await vaultStore(vault);
    expect((await store.findRecall("none", query))?.cards).toEqual(["people/Alice"]);
    await store.close();
  });

  test("a recall that cannot be recorded costs the prompt nothing but a line on stderr", async () => {
    const store = await vaultStore(vault);
    await store.commitTurn("other", { turn: 1, now: 1 });
    await store.close();
    const db = new Database(statePath(vault));
    db.exec("DROP TABLE recalls");
    db.close();
    const warnings: string[] = [];
    const result = await runHook(prompt("ask alice", "s1"), {
      vaultRoot: vault,
      inject: "index",
      log: false,
      warn: (l) => warnings.push(l),
    });
    expect(contextOf(result.stdout)).toContain("| people/Alice | alice\n");
    expect(warnings).toEqual([expect.stringContaining("lorecards hook: recall not recorded")]);
  });
});
