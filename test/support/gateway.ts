/**
 * A gateway handler over a real temporary vault and the fake upstream, called with `new Request(…)`.
 * Captures the stderr lines the gateway would print.
 */

import { createHandler, type GuardOptions, type InjectSettings, vaultDeps } from "../../src/gateway/index.ts";
import type { EngineOptions } from "../../src/recall/index.ts";
import type { FakeUpstream } from "./fake-upstream.ts";

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
    settings: { inject: "user", window: 3, reinjectAfter: 6, budget: 800, log: true, ...settings },
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
