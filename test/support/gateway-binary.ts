/**
 * The compiled gateway as its own process, for end-to-end tests: `gateway --json` prints one JSON line
 * `{url, …}` on stdout once it listens; stderr is collected for failure messages (and for tests that
 * read what it said). Extra flags and environment variables go after the ones every test gives.
 */

export interface GatewayProcess {
  url: string;
  stderr(): string;
  stop(): Promise<void>;
}

export async function startGatewayBinary(
  bin: string,
  vault: string,
  upstream: string,
  home: string,
  extra: { env?: Record<string, string>; args?: string[] } = {},
): Promise<GatewayProcess> {
  const proc = Bun.spawn(
    [
      bin,
      "gateway",
      "--vault",
      vault,
      "--upstream",
      upstream,
      "--port",
      "0",
      "--json",
      ...(extra.args ?? []),
    ],
    { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "", HOME: home, ...extra.env } },
  );
  let errText = "";
  void (async () => {
    for await (const chunk of proc.stderr) errText += new TextDecoder().decode(chunk);
  })();
  const stop = async () => {
    proc.kill();
    await proc.exited;
  };
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) {
      await stop();
      throw new Error(`the gateway exited before listening: ${out}${errText}`);
    }
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const ready = JSON.parse(out.slice(0, out.indexOf("\n"))) as { url: string };
  return { url: ready.url, stderr: () => errText, stop };
}
