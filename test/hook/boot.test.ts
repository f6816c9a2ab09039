/**
 * The boot block (README "The boot block"): at SessionStart the guide and the always-on cards go into
 * the session once, and the session's prompts treat those cards as in context from then on; a resumed
 * session gets nothing new, a cleared or compacted one gets the block again.
 */

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { runHook } from "../../src/hook/index.ts";
import { type CardFile, makeVault, removeDir } from "../support/vault.ts";

const PREMISE: CardFile = {
  dir: "things",
  key: "the Premise",
  keywords: ["premise"],
  body: "A harbour town where the tide keeps time.\n",
  extra: "context: always\n",
};
const ALICE: CardFile = { dir: "people", key: "Alice", keywords: ["alice"], body: "The user's sister.\n" };
const MAIN = path.join(import.meta.dir, "../../src/main.ts");
const GUIDE = "---\ntitle: Guide\n---\nWrite down what lasts.\n\n## correspondence\nnot for the model\n";

let vault = "";
beforeEach(() => {
  vault = makeVault([PREMISE, ALICE]);
  fs.writeFileSync(path.join(vault, "guide.md"), GUIDE);
});
afterEach(() => removeDir(vault));

const start = (source: string, session = "s1") =>
  JSON.stringify({ hook_event_name: "SessionStart", session_id: session, source });
const prompt = (text: string, session = "s1") =>
  JSON.stringify({ hook_event_name: "UserPromptSubmit", session_id: session, cwd: "/tmp", prompt: text });

async function context(stdin: string): Promise<string | undefined> {
  const { stdout } = await runHook(stdin, { vaultRoot: vault, log: false });
  return stdout === "" ? undefined : JSON.parse(stdout).hookSpecificOutput.additionalContext;
}

describe("the hook's boot block", () => {
  test("SessionStart answers with the guide, then the always-on cards, and nothing named", async () => {
    const { stdout } = await runHook(start("startup"), { vaultRoot: vault, log: false });
    const answer = JSON.parse(stdout).hookSpecificOutput;
    expect(answer.hookEventName).toBe("SessionStart");
    const text = answer.additionalContext as string;
    expect(text).toContain("Write down what lasts.");
    expect(text).not.toContain("not for the model");
    expect(text.indexOf("Write down what lasts.")).toBeLessThan(text.indexOf("### the Premise [thing]"));
    expect(text).not.toContain("### Alice");
  });

  test("the session's prompts treat the boot cards as in context, however many prompts later", async () => {
    await context(start("startup"));
    const sent: (string | undefined)[] = [];
    for (let i = 0; i < 9; i++) sent.push(await context(prompt(i === 4 ? "and alice?" : `line ${i}`)));
    expect(sent.filter((c) => c?.includes("the Premise"))).toEqual([]);
    expect(sent[4]).toContain("### Alice [people]");
  });

  test("a resumed session gets nothing new; a compacted or cleared one gets the block again", async () => {
    await context(start("startup"));
    expect(await context(start("resume"))).toBeUndefined();
    expect(await context(prompt("hello"))).toBeUndefined();
    expect(await context(start("compact"))).toContain("the Premise");
    expect(await context(start("clear"))).toContain("the Premise");
    expect(await context(prompt("hello again"))).toBeUndefined();
  });

  test("the guide is no card: naming it fires nothing and lists nothing", async () => {
    await context(start("startup"));
    expect(await context(prompt("is there a guide for this?"))).toBeUndefined();
    const listed = Bun.spawnSync([process.execPath, MAIN, "list", "--json", "--vault", vault]);
    expect(listed.stdout.toString()).not.toContain("guide");
  });

  test("without SessionStart the always-on card comes with the first prompt, as before", async () => {
    expect(await context(prompt("hello", "s2"))).toContain("the Premise");
  });

  test("a guide alone is a boot block; no guide and no always-on card is none", async () => {
    fs.rmSync(path.join(vault, "things", "the Premise.md"));
    expect(await context(start("startup", "s3"))).toContain("Write down what lasts.");
    fs.rmSync(path.join(vault, "guide.md"));
    expect(await context(start("startup", "s4"))).toBeUndefined();
  });
});

describe("boot recall: the working folder and its repository", () => {
  const PAYMENTS: CardFile = {
    dir: "things",
    key: "the payments team",
    keywords: ["payments team"],
    body: "Owns refunds; on call in the afternoons.\n",
  };
  const LEDGER: CardFile = {
    dir: "things",
    key: "the ledger",
    keywords: ["ledger-service"],
    body: "Double entry.\n",
  };
  const RUNBOOK: CardFile = {
    dir: "things",
    key: "the runbook",
    keywords: ["runbook"],
    body: "See the payments team's pager.\n",
  };
  const startIn = (cwd: string, session = "w1") =>
    JSON.stringify({ hook_event_name: "SessionStart", session_id: session, source: "startup", cwd });
  const noGit = () => [] as string[];

  async function boot(stdin: string, remotes: string[] = [], budget?: number) {
    const { stdout } = await runHook(stdin, { vaultRoot: vault, log: false, askGit: () => remotes, budget });
    return stdout === "" ? undefined : (JSON.parse(stdout).hookSpecificOutput.additionalContext as string);
  }

  beforeEach(() => {
    for (const c of [PAYMENTS, LEDGER, RUNBOOK])
      fs.writeFileSync(
        path.join(vault, c.dir, `${c.key}.md`),
        `---\nkeywords: ${JSON.stringify(c.keywords)}\n---\n${c.body}`,
      );
  });

  test("a card named by the folder joins the boot block after the guide and the always-on cards", async () => {
    const text = (await boot(startIn("/home/me/payments team")))!;
    expect(text).toContain('Where this session works (folder "payments team")');
    const at = (s: string) => text.indexOf(s);
    expect(at("Write down what lasts.")).toBeLessThan(at("### the Premise [thing]"));
    expect(at("### the Premise [thing]")).toBeLessThan(at("### the payments team [thing]"));
    // Only what the names name: the runbook that mentions the team is not reached.
    expect(text).not.toContain("the runbook");
  });

  test("the repository of the first git remote names cards too, its separators read as spaces", async () => {
    const text = (await boot(startIn("/work/checkout", "w2"), ["git@github.com:acme/ledger-service.git"]))!;
    expect(text).toContain('repository "ledger-service"');
    expect(text).toContain("### the ledger [thing]");
    const underscored = (await boot(startIn("/home/me/payments_team", "w3")))!;
    expect(underscored).toContain("### the payments team [thing]");
  });

  test("its cards are in context for the session's prompts", async () => {
    await boot(startIn("/home/me/payments team", "w4"));
    const later = await runHook(prompt("what does the payments team own?", "w4"), {
      vaultRoot: vault,
      log: false,
      askGit: noGit,
    });
    expect(later.stdout).not.toContain("the payments team [thing]");
  });

  test("it keeps to what the budget leaves after the boot cards", async () => {
    const premise = "### the Premise [thing]\nA harbour town where the tide keeps time.".length;
    const tight = await boot(startIn("/home/me/payments team", "w5"), [], premise + 5);
    expect(tight).toContain("the Premise");
    expect(tight).not.toContain("payments team [thing]");
    const roomy = await boot(startIn("/home/me/payments team", "w6"), [], premise + 200);
    expect(roomy).toContain("### the payments team [thing]");
  });

  test("the lore switch: declared keeps the guide and the always-on cards only, none sends no boot block", async () => {
    const run = async (lore: "declared" | "none", session: string) => {
      const { stdout } = await runHook(startIn("/home/me/payments team", session), {
        vaultRoot: vault,
        log: false,
        askGit: noGit,
        recall: { lore },
      });
      return stdout === "" ? undefined : (JSON.parse(stdout).hookSpecificOutput.additionalContext as string);
    };
    const declared = (await run("declared", "lore-d"))!;
    expect(declared).toContain("Write down what lasts.");
    expect(declared).toContain("### the Premise [thing]");
    expect(declared).not.toContain("payments team");
    expect(await run("none", "lore-n")).toBeUndefined();
  });

  test("settings.yaml boot_recall: false turns it off", async () => {
    fs.writeFileSync(path.join(vault, "settings.yaml"), "boot_recall: false\n");
    const text = (await boot(startIn("/home/me/payments team", "w7")))!;
    expect(text).toContain("the Premise");
    expect(text).not.toContain("payments team");
  });

  test("with no guide and no always-on card, the folder's cards are the boot block", async () => {
    fs.rmSync(path.join(vault, "guide.md"));
    fs.rmSync(path.join(vault, "things", "the Premise.md"));
    const text = (await boot(startIn("/home/me/payments team", "w8")))!;
    expect(text.startsWith("<")).toBe(true);
    expect(text).toContain("### the payments team [thing]");
  });
});
