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
