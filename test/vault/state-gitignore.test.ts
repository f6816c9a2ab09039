/**
 * The state folder keeps out of the vault's git: a notes app's git plugin commits every file, and
 * `.lorecards/` holds the marker secret, every card's history and the backups. A new user's `git
 * status` after one `check` listed it, ready to be pushed.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "../support/vault.ts";

const MAIN = path.resolve(import.meta.dir, "../../src/main.ts");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function gitVault(): string {
  const root = tempDir();
  dirs.push(root);
  fs.mkdirSync(path.join(root, "Characters"));
  fs.writeFileSync(path.join(root, "Characters", "Mira.md"), "---\naliases: [Miri]\n---\nA mapmaker.\n");
  expect(Bun.spawnSync(["git", "init", "-q", root]).exitCode).toBe(0);
  return root;
}

const untracked = (root: string) =>
  Bun.spawnSync(["git", "-C", root, "status", "--porcelain", "--untracked-files=all"]).stdout.toString();

test.each([
  ["check", ["check"]],
  ["try", ["try", "Miri"]],
  ["init", ["init"]],
  ["a hook's prompt", ["hook"]],
])("after %s, git sees the vault's notes and nothing of lorecards' state", (_name, args) => {
  const root = gitVault();
  const stdin = JSON.stringify({ hook_event_name: "UserPromptSubmit", session_id: "s", prompt: "Miri?" });
  const run = Bun.spawnSync([process.execPath, MAIN, ...args, "--vault", root], {
    stdin: new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(run.exitCode).toBe(0);
  expect(fs.existsSync(path.join(root, ".lorecards"))).toBe(true);
  expect(untracked(root)).toBe("?? Characters/Mira.md\n");
});
