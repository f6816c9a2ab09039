/**
 * The boot block with the real Claude Code (pinned devDependency): its user settings run the compiled
 * `lorecards hook` on SessionStart and on every prompt, against the deterministic fake upstream. The
 * guide and the always-on card reach the model once, at the start of the session; a card named in a
 * prompt comes with that prompt; nothing is sent twice across `--continue`.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { ensureBinary } from "../support/binary.ts";
import { describeRun, runClaude } from "../support/client-cli.ts";
import { CLIENT_CARDS, type ClientUpstream, startClientUpstream } from "../support/client-upstream.ts";
import { makeVault, removeDir, tempDir } from "../support/vault.ts";

const PREMISE = {
  dir: "things",
  key: "the Premise",
  keywords: ["premise"],
  body: "A harbour town where the tide keeps time.\n",
  extra: "context: always\n",
};
const GUIDE = "Keep notes of what lasts; the guide speaks.\n";

let upstream: ClientUpstream;
let vault = "";
let home = "";
let cwd = "";

beforeAll(async () => {
  const bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  vault = makeVault([...CLIENT_CARDS, PREMISE]);
  fs.writeFileSync(path.join(vault, "guide.md"), GUIDE);
  home = tempDir();
  cwd = tempDir();
  const hook = { hooks: [{ type: "command", command: `${bin} hook --vault ${vault}` }] };
  fs.mkdirSync(path.join(home, ".claude"), { recursive: true });
  fs.writeFileSync(
    path.join(home, ".claude", "settings.json"),
    JSON.stringify({ hooks: { SessionStart: [hook], UserPromptSubmit: [hook] } }),
  );
  upstream = startClientUpstream();
}, 180_000);
afterAll(async () => {
  await upstream?.close();
  for (const dir of [vault, home, cwd]) if (dir) removeDir(dir);
});

const count = (text: string, part: string) => text.split(part).length - 1;

describe("Claude Code with lorecards hook on SessionStart and UserPromptSubmit", () => {
  test("the guide and the always-on card arrive once at the start; named cards with their prompt", async () => {
    const at = { home, cwd, baseUrl: upstream.url };
    const first = await runClaude(["-p", "Tell me about Zorblax please."], at);
    expect(first.code, describeRun(first)).toBe(0);
    const second = await runClaude(["-p", "--continue", "And where is Vellmoor?"], at);
    expect(second.code, describeRun(second)).toBe(0);
    const chats = upstream.received.filter((r) => r.method === "POST" && r.path.startsWith("/v1/messages"));
    expect(chats.length).toBeGreaterThanOrEqual(2);
    const [one, two] = [chats[0]!.body, chats.at(-1)!.body];
    expect(count(one, "the guide speaks")).toBe(1);
    expect(count(one, "### the Premise [thing]")).toBe(1);
    expect(one.indexOf("the guide speaks")).toBeLessThan(one.indexOf("### Zorblax"));
    // The resumed conversation carries the first turn's context as it was, and adds only Vellmoor.
    expect(count(two, "### the Premise [thing]")).toBe(1);
    expect(count(two, "### Zorblax")).toBe(1);
    expect(count(two, "### Vellmoor")).toBe(1);
  });
});
