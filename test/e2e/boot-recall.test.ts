// Boot recall through the compiled hook, as Claude Code starts a session (docs/HOOK-AND-MCP.md "Boot
// recall"): the SessionStart payload's `cwd` is a real folder in a real git repository, and the cards
// the folder's and the repository's names bring are in the boot block the model receives.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { type CardFile, makeVault, removeDir } from "../support/vault.ts";

const CARDS: CardFile[] = [
  {
    dir: "things",
    key: "the Premise",
    keywords: ["premise"],
    body: "Ship small, ship often.\n",
    extra: "context: always\n",
  },
  {
    dir: "things",
    key: "the payments team",
    keywords: ["payments team"],
    body: "Owns refunds and the ledger.\n",
  },
  {
    dir: "things",
    key: "Checkout API",
    keywords: ["checkout-api"],
    body: "Idempotency keys on every POST.\n",
  },
  { dir: "people", key: "Alice", keywords: ["alice"], body: "On call this week.\n" },
];

let vault = "";
let work = "";
beforeAll(async () => {
  await ensureBinary();
  vault = makeVault(CARDS);
  work = fs.mkdtempSync(path.join(os.tmpdir(), "lc-work-"));
});
afterAll(() => {
  removeDir(vault);
  removeDir(work);
});

function git(cwd: string, ...args: string[]): void {
  const r = Bun.spawnSync(["git", ...args], { cwd, stdout: "ignore", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
}

async function sessionStart(cwd: string, session: string, flags: string[] = []): Promise<string> {
  const r = await runBinary(["hook", "--vault", vault, ...flags], {
    stdin: JSON.stringify({ hook_event_name: "SessionStart", session_id: session, source: "startup", cwd }),
    env: { HOME: work },
  });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  return r.stdout ? JSON.parse(r.stdout).hookSpecificOutput.additionalContext : "";
}

describe("boot recall (compiled hook)", () => {
  test("a folder named like a card brings it after the always-on cards", async () => {
    const folder = path.join(work, "payments team");
    fs.mkdirSync(folder);
    const block = await sessionStart(folder, "br-1");
    expect(block).toContain('Where this session works (folder "payments team")');
    expect(block.indexOf("### the Premise")).toBeLessThan(block.indexOf("### the payments team"));
    expect(block).not.toContain("Alice");
  });

  test("the first remote's repository name brings its card, from a sub-folder too", async () => {
    const repo = path.join(work, "clone");
    fs.mkdirSync(path.join(repo, "src"), { recursive: true });
    git(repo, "init", "-q");
    git(repo, "remote", "add", "origin", "git@github.com:acme/checkout-api.git");
    git(repo, "remote", "add", "fork", "https://github.com/me/alice.git");
    const block = await sessionStart(path.join(repo, "src"), "br-2");
    expect(block).toContain('repository "checkout-api"');
    expect(block).toContain("### Checkout API");
    // The second remote is not asked about.
    expect(block).not.toContain("### Alice");
  });

  test("the guide goes first, then the always-on cards, then the folder's, within the hook's budget", async () => {
    const folder = path.join(work, "payments team");
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(vault, "guide.md"), "Write down what lasts.\n");
    try {
      const block = await sessionStart(folder, "br-4");
      const at = (text: string) => block.indexOf(text);
      expect(at("Write down what lasts.")).toBeGreaterThan(-1);
      expect(at("Write down what lasts.")).toBeLessThan(at("### the Premise"));
      expect(at("### the Premise")).toBeLessThan(at("### the payments team"));
      // A budget the always-on card alone nearly fills leaves the folder's card out.
      const premise = "### the Premise [thing]\nShip small, ship often.".length;
      const tight = await sessionStart(folder, "br-5", ["--budget", String(premise + 5)]);
      expect(tight).toContain("### the Premise");
      expect(tight).not.toContain("### the payments team");
    } finally {
      fs.rmSync(path.join(vault, "guide.md"));
    }
  });

  test("settings.yaml boot_recall: false leaves the boot block as it was", async () => {
    fs.writeFileSync(path.join(vault, "settings.yaml"), "boot_recall: false\n");
    try {
      const block = await sessionStart(path.join(work, "payments team"), "br-3");
      expect(block).toContain("### the Premise");
      expect(block).not.toContain("payments team");
    } finally {
      fs.rmSync(path.join(vault, "settings.yaml"));
    }
  });
});
