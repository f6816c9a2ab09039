// The compiled gateway hands folder scans and rebuilds to `lorecards refresh`, a child process of the
// same binary (src/cli/_refresher.ts): the child must find the binary and run cleanly, and a card saved
// while the gateway runs must reach the next request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBinary } from "../support/binary.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { type GatewayProcess, startGatewayBinary } from "../support/gateway-binary.ts";
import { until } from "../support/wait.ts";

let dir = "";
let upstream: FakeUpstream;
let gateway: GatewayProcess;

beforeAll(async () => {
  const bin = await ensureBinary();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lc-gw-refresh-"));
  const vault = path.join(dir, "vault");
  fs.mkdirSync(path.join(vault, "people"), { recursive: true });
  fs.writeFileSync(
    path.join(vault, "people", "Ada.md"),
    "---\ntitle: Ada\nkeywords: [loom]\n---\nAda runs the loom.\n",
  );
  upstream = startFakeUpstream({ reply: () => "Noted." });
  gateway = await startGatewayBinary(bin, vault, upstream.url, dir);
});

afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function injected(text: string): Promise<string | null> {
  const res = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: text }] }),
  });
  await res.text();
  return res.headers.get("x-lorecards-injected");
}

describe("the compiled gateway's refresher", () => {
  test("runs the binary's own refresh cleanly, and a card saved meanwhile reaches the next request", async () => {
    expect(await injected("the loom again")).toBe("Ada");
    const file = path.join(dir, "vault", "people", "Bo.md");
    fs.writeFileSync(`${file}.tmp`, "---\ntitle: Bo\nkeywords: [kiln]\n---\nBo fires the kiln.\n");
    fs.renameSync(`${file}.tmp`, file);
    await until(async () => (await injected("the kiln is hot")) === "Bo", "the new card");
    // The periodic check (every 2 s) has found the folder moved and run a refresh by now.
    await Bun.sleep(2500);
    expect(gateway.stderr()).not.toContain("refresh failed");
  });
});
