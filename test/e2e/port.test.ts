// A port is never shared: Bun's servers would otherwise set SO_REUSEPORT, and a second `lorecards`
// server on a taken port would start without a word while the kernel split the connections (and the
// API keys they carry) between the two. Every server command refuses the taken port with its own
// exit code (6), and the first server keeps answering every request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureBinary, runBinary } from "../support/binary.ts";
import { cardText, type TempVault, tempVault } from "../support/card-vault.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { streamText } from "../support/wait.ts";

let vault: TempVault;
let upstream: FakeUpstream;

beforeAll(async () => {
  await ensureBinary();
  vault = tempVault({ "people/Alice.md": cardText("keywords: [Alice]", "## who\nMy sister.\n") });
  upstream = startFakeUpstream();
});

afterAll(async () => {
  await upstream.close();
  vault.remove();
});

/** Each server command, as a person starts it, on the port given. */
const servers: [string, (port: number) => string[]][] = [
  ["gateway", (port) => ["gateway", "--upstream", upstream.url, "--port", String(port)]],
  ["ui", (port) => ["ui", "--port", String(port)]],
  ["mcp --http", (port) => ["mcp", "--http", "--port", String(port)]],
];

/** Starts the binary and resolves with its --json ready line and the process. */
async function start(args: string[]) {
  const bin = await ensureBinary();
  const proc = Bun.spawn([bin, ...args, "--vault", vault.root, "--json"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", HOME: vault.root },
  });
  const out = streamText(proc.stdout);
  await out.waitFor("\n", 0, 30_000);
  const ready = JSON.parse(out.text().split("\n")[0]!) as { url: string };
  return { proc, port: Number(new URL(ready.url).port) };
}

describe.each(servers)("a second %s on a port that is taken", (_name, argsFor) => {
  test("is refused with exit code 6 and a message naming the port, and the first keeps serving", async () => {
    const first = await start(argsFor(0));
    try {
      // The second is started the same way, on the first one's port; it is the same binary and vault.
      const second = await runBinary([...argsFor(first.port), "--vault", vault.root], {
        env: { HOME: vault.root },
      });
      expect(second.code).toBe(6);
      expect(second.stderr).toContain(`port ${first.port}`);
      expect(second.stderr).toContain("already in use");

      const json = await runBinary([...argsFor(first.port), "--vault", vault.root, "--json"], {
        env: { HOME: vault.root },
      });
      expect(json.code).toBe(6);
      expect(JSON.parse(json.stdout)).toMatchObject({ error: "address_in_use" });

      // The first is untouched and still serving.
      await (await fetch(`http://127.0.0.1:${first.port}/nothing-here`)).arrayBuffer();
      expect(first.proc.exitCode).toBeNull();
    } finally {
      first.proc.kill("SIGTERM");
      await first.proc.exited;
    }
  });
});

// The home server's one service: `ui --gateway-upstream` runs the gateway beside the editor. With the
// gateway's port taken, a service that kept running as an editor alone would look healthy to systemd
// while every client's request went to whatever holds the port.
describe("ui with the gateway beside it, on a gateway port that is taken", () => {
  test("ends with exit code 6, naming --gateway-port, rather than living on as an editor alone", async () => {
    const first = await start(["gateway", "--upstream", upstream.url, "--port", "0"]);
    try {
      // runBinary waits for the process to end: a ui that lived on would hang this test.
      const ui = await runBinary(
        [
          ...["ui", "--port", "0", "--gateway-upstream", upstream.url],
          ...["--gateway-port", String(first.port), "--vault", vault.root],
        ],
        { env: { HOME: vault.root } },
      );
      expect(ui.code).toBe(6);
      expect(ui.stderr).toContain(`port ${first.port} on 127.0.0.1 is already in use`);
      expect(ui.stderr).toContain("choose another --gateway-port");
      expect(first.proc.exitCode).toBeNull();
    } finally {
      first.proc.kill("SIGTERM");
      await first.proc.exited;
    }
  });
});
