/**
 * A gateway handler over a real temporary vault and the fake upstream, called with `new Request(…)`.
 * Captures the stderr lines the gateway would print.
 */

import { afterAll, afterEach, beforeAll } from "bun:test";
import { createHandler, type GuardOptions, type InjectSettings, vaultDeps } from "../../src/gateway/index.ts";
import type { EngineOptions } from "../../src/recall/index.ts";
import { type FakeUpstream, startFakeUpstream } from "./fake-upstream.ts";
import { markersOf } from "./state.ts";
import { makeVault, removeDir } from "./vault.ts";

export interface Harness {
  warnings: string[];
  send(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  sendRaw(
    path: string,
    body: string | Uint8Array<ArrayBuffer>,
    headers?: Record<string, string>,
  ): Promise<Response>;
  close(): void;
}

export const BASE = "http://127.0.0.1:8765";

export function harness(
  vaultRoot: string,
  upstream: FakeUpstream,
  settings: Partial<InjectSettings> = {},
  extra: { token?: string; engine?: EngineOptions; guard?: GuardOptions } = {},
): Harness {
  const warnings: string[] = [];
  const deps = vaultDeps({
    vaultRoot,
    engine: { watch: false, ...extra.engine },
    warn: (l) => warnings.push(l),
  });
  const handler = createHandler({
    upstream: new URL(upstream.url),
    token: extra.token,
    guard: extra.guard,
    settings: { inject: "user", window: 3, budget: 800, log: true, ...settings },
    deps,
  });
  const sendRaw = (
    path: string,
    body: string | Uint8Array<ArrayBuffer>,
    headers: Record<string, string> = {},
  ) =>
    handler(
      new Request(BASE + path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      }),
    );
  return {
    warnings,
    sendRaw,
    send: (path, body, headers) => sendRaw(path, JSON.stringify(body), headers),
    close: () => deps.close(),
  };
}

/**
 * The shape of a gateway test file: one fake upstream for the file, and per `setup()` a fresh vault
 * with a handler over it, both closed after each test. `upstream()` is there once the tests run.
 */
export function gatewaySuite() {
  let upstream: FakeUpstream | undefined;
  const vaults: string[] = [];
  const harnesses: Harness[] = [];
  beforeAll(() => {
    upstream = startFakeUpstream();
  });
  afterAll(async () => {
    await upstream?.close();
  });
  afterEach(() => {
    for (const h of harnesses.splice(0)) h.close();
    for (const v of vaults.splice(0)) removeDir(v);
  });
  const current = (): FakeUpstream => {
    if (!upstream) throw new Error("the fake upstream starts with the tests");
    return upstream;
  };
  return {
    upstream: current,
    async setup(settings: Partial<InjectSettings> = {}, extra: Parameters<typeof harness>[3] = {}) {
      const vault = makeVault();
      vaults.push(vault);
      const h = harness(vault, current(), settings, extra);
      harnesses.push(h);
      return { vault, h, markers: await markersOf(vault) };
    },
  };
}
