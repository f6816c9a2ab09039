/**
 * The boot block with the real Claude Code (pinned devDependency): its user settings run the compiled
 * `lorecards hook` on SessionStart and on every prompt, against the deterministic fake upstream. The
 * guide and the always-on card reach the model once, at the start of the session; a card named in a
 * prompt comes with that prompt; nothing is sent twice across `--continue`. Then the hook and the
 * gateway at once, on one vault (Claude Code → recorder → `lorecards gateway` → the fake): the gateway
 * sees the hook's blocks, so the guide and every card reach the model once, on every request.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { ensureBinary } from "../support/binary.ts";
import { appendOnlyBreaks } from "../support/client-checks.ts";
import { describeRun, runClaude } from "../support/client-cli.ts";
import { startClientSession } from "../support/client-session.ts";
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
let bin = "";
let vault = "";
let home = "";
let cwd = "";

beforeAll(async () => {
  bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  vault = makeVault([...CLIENT_CARDS, PREMISE]);
  fs.writeFileSync(path.join(vault, "guide.md"), GUIDE);
  home = tempDir();
  cwd = tempDir();
  hookOn(home, vault);
  upstream = startClientUpstream();
}, 180_000);
afterAll(async () => {
  await upstream?.close();
  for (const dir of [vault, home, cwd]) if (dir) removeDir(dir);
});

const count = (text: string, part: string) => text.split(part).length - 1;

/** Claude Code's user settings in `home`: `lorecards hook` on SessionStart and on every prompt. */
function hookOn(home: string, vault: string): void {
  const hook = { hooks: [{ type: "command", command: `${bin} hook --vault ${vault}` }] };
  fs.mkdirSync(path.join(home, ".claude"), { recursive: true });
  fs.writeFileSync(
    path.join(home, ".claude", "settings.json"),
    JSON.stringify({ hooks: { SessionStart: [hook], UserPromptSubmit: [hook] } }),
  );
}

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

describe("Claude Code with the hook and the gateway at once, on one vault", () => {
  test("the guide and every card reach the model once on every request, the conversation append-only", async () => {
    const session = await startClientSession([...CLIENT_CARDS, PREMISE], { "guide.md": GUIDE });
    try {
      const at = { home: session.dir(), cwd: session.dir(), baseUrl: session.url };
      hookOn(at.home, session.vault);
      const first = await runClaude(["-p", "Tell me about Zorblax please."], at);
      expect(first.code, describeRun(first)).toBe(0);
      const second = await runClaude(["-p", "--continue", "And where is Vellmoor?"], at);
      expect(second.code, describeRun(second)).toBe(0);
      const xs = await session.exchanges();
      expect(xs.length, session.gatewayStderr()).toBeGreaterThanOrEqual(2);
      for (const [i, x] of xs.entries()) {
        const body = x.upstream?.body ?? "";
        const n = `#${i + 1}`;
        expect([n, count(body, "the guide speaks")]).toEqual([n, 1]);
        for (const card of ["### the Premise [thing]", "### Zorblax"])
          expect([n, card, count(body, card)]).toEqual([n, card, 1]);
        expect([n, count(body, "### Vellmoor")]).toEqual([n, i === xs.length - 1 ? 1 : 0]);
      }
      // The hook sent all of it first: the gateway had nothing of its own to add.
      expect(xs.map((x) => x.injected)).toEqual(xs.map(() => null));
      expect(appendOnlyBreaks(xs)).toEqual([]);
    } finally {
      await session.close();
    }
  });
});
