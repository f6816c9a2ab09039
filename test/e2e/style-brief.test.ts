/**
 * `--style-brief` through the compiled binary: once style memory has learned a habit (two
 * conversations through the hook), a session the hook starts with `--style-brief` opens with the brief
 * after the guide, and so does the first request of a gateway conversation; without the flag neither
 * carries it.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { ensureBinary } from "../support/binary.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { startGatewayBinary } from "../support/gateway-binary.ts";
import { makeVault, removeDir, tempDir } from "../support/vault.ts";

let bin = "";
let vault = "";
let home = "";
let upstream: FakeUpstream;

async function hook(stdin: object, ...args: string[]): Promise<string> {
  const proc = Bun.spawn([bin, "hook", "--vault", vault, ...args], {
    stdin: new Blob([JSON.stringify(stdin)]),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", HOME: home },
  });
  const [out, code] = await Promise.all([new Response(proc.stdout as ReadableStream).text(), proc.exited]);
  expect(code).toBe(0);
  return out === "" ? "" : JSON.parse(out).hookSpecificOutput.additionalContext;
}

beforeAll(async () => {
  bin = process.env.LORECARDS_BIN ?? (await ensureBinary());
  vault = makeVault();
  home = tempDir();
  fs.writeFileSync(path.join(vault, "guide.md"), "Keep notes of what lasts.\n");
  upstream = startFakeUpstream();
  for (const session of ["one", "two"])
    for (const prompt of ["lol that deploy was wild, no cap", "ok lol no cap"])
      await hook({ hook_event_name: "UserPromptSubmit", session_id: session, prompt });
}, 180_000);
afterAll(async () => {
  await upstream?.close();
  removeDir(vault);
  removeDir(home);
});

describe("the style brief at the start", () => {
  test("the hook's boot block carries it after the guide with --style-brief, and not without", async () => {
    const start = (session: string) => ({
      hook_event_name: "SessionStart",
      session_id: session,
      source: "startup",
    });
    const withBrief = await hook(start("three"), "--style-brief");
    expect(withBrief).toContain("Keep notes of what lasts.");
    expect(withBrief).toMatch(/Style brief \(revision \d+\)/);
    expect(withBrief).toContain('"no cap"');
    expect(withBrief.indexOf("Keep notes")).toBeLessThan(withBrief.indexOf("Style brief"));
    const without = await hook(start("four"));
    expect(without).toContain("Keep notes of what lasts.");
    expect(without).not.toContain("Style brief");
  });

  test("the gateway's first request of a conversation carries it with --style-brief", async () => {
    const gateway = await startGatewayBinary(bin, vault, upstream.url, home, { args: ["--style-brief"] });
    try {
      const res = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-lorecards-conversation": "brief-1" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello there" }] }),
      });
      expect(res.status).toBe(200);
      const sent = upstream.received.at(-1)!.body;
      expect(sent).toContain("Keep notes of what lasts.");
      expect(sent).toMatch(/Style brief \(revision \d+\)/);
    } finally {
      await gateway.stop();
    }
  });
});
