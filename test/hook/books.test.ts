// The hook reads the books a project chooses (docs/BOOKS.md): `--book` or `$LORECARDS_BOOKS`, which
// Claude Code's per-project settings can set (`.claude/settings.json` "env"), so a novel's folder reads
// the novel's book and another project's does not; the boot block at SessionStart reads them too.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { recallFlags } from "../../src/cli/_args.ts";
import { runHook } from "../../src/hook/index.ts";
import { makeVault, removeDir } from "../support/vault.ts";

let vault = "";
beforeEach(() => {
  vault = makeVault();
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
    fs.writeFileSync(path.join(vault, rel), text);
  };
  write("books/novel/people/Inspector.md", "---\nkeywords: [inspector]\n---\nNOVEL: Inspector Vane.\n");
  write("books/novel/Style.md", "---\ncontext: always\n---\nNOVEL-ALWAYS: past tense, third person.\n");
  write("books/novel/book.yaml", "active: asked\n");
});
afterEach(() => {
  removeDir(vault);
  delete process.env.LORECARDS_BOOKS;
});

const prompt = (text: string, event = "UserPromptSubmit") =>
  JSON.stringify({ hook_event_name: event, session_id: "s1", cwd: "/tmp", prompt: text, source: "startup" });
const context = (stdout: string) =>
  stdout === "" ? "" : JSON.parse(stdout).hookSpecificOutput.additionalContext;

describe("the hook's books, per project", () => {
  test("a book kept for when it is asked is not read by a project that does not name it", async () => {
    const out = await runHook(prompt("the inspector and Alice"), { vaultRoot: vault, log: false });
    expect(context(out.stdout)).not.toContain("NOVEL");
    expect(out.injected).toEqual(["Alice"]);
  });

  test("$LORECARDS_BOOKS, as a project's Claude Code settings set it, reads exactly those books", async () => {
    process.env.LORECARDS_BOOKS = "novel";
    const recall = recallFlags({});
    expect(recall.books).toEqual({ named: ["novel"] });
    const out = await runHook(prompt("the inspector and Alice"), { vaultRoot: vault, log: false, recall });
    expect(context(out.stdout)).toContain("NOVEL: Inspector Vane.");
    expect(out.injected).not.toContain("Alice");
  });

  test("--book main,novel: the vault's own cards and the novel's; the boot block brings the novel's always-on card", async () => {
    const recall = recallFlags({ book: "main,novel" });
    const boot = await runHook(prompt("", "SessionStart"), { vaultRoot: vault, log: false, recall });
    expect(context(boot.stdout)).toContain("NOVEL-ALWAYS");
    const out = await runHook(prompt("the inspector and Alice"), { vaultRoot: vault, log: false, recall });
    expect(out.injected.sort()).toEqual(["Alice", "Inspector"]);
  });
});
