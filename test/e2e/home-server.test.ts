// The home-server setup: `lorecards ui --gateway-upstream` runs the editor and the gateway in one
// compiled process. A card created through the editor's API is injected by the gateway straight away.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { ensureBinary } from "../support/binary.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";

let vault: TempVault;
let upstream: FakeUpstream;
let proc: Subprocess<"ignore", "pipe", "pipe">;
let ready: { url: string; vault: string; gateway: string };

/** The first line the process prints on stdout: its --json "ready" object. */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split("\n")[0]!;
}

beforeAll(async () => {
  const bin = await ensureBinary();
  vault = tempVault({ "people/Alice.md": cardText("keywords: [Alice]", "## who\nMy sister.\n") });
  upstream = startFakeUpstream();
  proc = Bun.spawn(
    [
      bin,
      "ui",
      "--vault",
      vault.root,
      "--port",
      "0",
      "--gateway-upstream",
      upstream.url,
      "--gateway-port",
      "0",
      "--json",
    ],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  ready = JSON.parse(await firstLine(proc.stdout));
});

afterAll(async () => {
  proc.kill("SIGTERM");
  await proc.exited;
  await upstream.close();
  vault.remove();
});

const chat = (text: string) =>
  fetch(`${ready.gateway}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: text }] }),
  });

describe("the editor and the gateway in one process", () => {
  test("--json announces both addresses", () => {
    expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.gateway).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(ready.vault).toBe(vault.root);
  });

  test("a card created in the editor is injected by the gateway on the next request", async () => {
    const before = await chat("Have you met Quentin?");
    expect(before.headers.get("x-lorecards-injected")).toBeNull();
    const created = await fetch(`${ready.url}/api/cards`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-lorecards": "1" },
      body: JSON.stringify({
        kind: "people",
        title: "Quentin",
        keywords: ["Quentin"],
        fields: { who: "The new neighbour." },
      }),
    });
    expect(created.status).toBe(201);
    const after = await chat("Have you met Quentin?");
    expect(after.headers.get("x-lorecards-injected")).toBe("Quentin");
    expect(upstream.received.at(-1)?.body).toContain("The new neighbour.");
  });

  test("the editor stops cleanly on a SIGTERM sent the moment it says it is ready", async () => {
    const bin = await ensureBinary();
    // A supervisor may stop the service as soon as it reads the ready line; a few rounds catch the race.
    for (let round = 0; round < 6; round++) {
      const p = Bun.spawn([bin, "ui", "--port", "0", "--vault", vault.root, "--json"], {
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(JSON.parse(await firstLine(p.stdout)).url).toMatch(/^http:/);
      p.kill("SIGTERM");
      expect(await p.exited).toBe(0);
    }
  });

  test("the process stops cleanly on SIGTERM", async () => {
    const bin = await ensureBinary();
    const p = Bun.spawn(
      [bin, "gateway", "--upstream", upstream.url, "--port", "0", "--vault", vault.root, "--json"],
      {
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const line = JSON.parse(await firstLine(p.stdout));
    expect(line.base_url).toMatch(/\/v1$/);
    p.kill("SIGTERM");
    expect(await p.exited).toBe(0);
  });
});
