/**
 * `listen()` wraps `Bun.serve` so a surface stays a plain `fetch(req) → Response` function (plus, for
 * the editor, a table of exact paths). It answers 400 to a request without a usable Host before any
 * handler sees it, never sends Bun's development error page (it shows source and stack), and can add
 * headers to every response. The idle timeout is off by default: a slow server-sent-event stream must
 * not be cut after 10 s of silence (Bun's default).
 *
 * A port is never shared. Bun sets SO_REUSEPORT unless told not to, and with it a second server on a
 * taken port starts without a word while the kernel splits the connections (and the API keys they
 * carry) between the two; so `reusePort` is off, and a taken port is an `address_in_use` error.
 */

import { LoreError } from "../errors.ts";
import { refuseHostless } from "./host.ts";
import { withHeaders } from "./security.ts";
import type { Peer } from "./throttle.ts";

export type Handler = (req: Request, peer: Peer) => Response | Promise<Response>;

export interface ListenOptions {
  hostname: string;
  /** 0 picks a free port. */
  port: number;
  fetch: Handler;
  /** Exact paths answered by their own handler; everything else goes to `fetch`. */
  routes?: Record<string, Handler>;
  /** Set on every response (the editor's security headers); none by default, as a proxy must. */
  headers?: Record<string, string>;
  /** Seconds of silence before a connection is closed; 0 = never (default). */
  idleTimeout?: number;
  /** Largest request body accepted, in bytes; Bun's default (128 MiB) when absent. */
  maxRequestBodySize?: number;
}

export interface Listener {
  /** Base URL with the real port, e.g. `http://127.0.0.1:8765`. */
  url: string;
  port: number;
  hostname: string;
  /** Stop accepting; with `force`, also close open connections. */
  stop(force?: boolean): Promise<void>;
}

export function listen(options: ListenOptions): Listener {
  const headers = options.headers;
  const wrap =
    (handler: Handler): Handler =>
    async (req, peer) => {
      const res = refuseHostless(req) ?? (await handler(req, peer));
      return headers ? withHeaders(res, headers) : res;
    };
  const routes = Object.fromEntries(Object.entries(options.routes ?? {}).map(([p, h]) => [p, wrap(h)]));
  const server = serve({
    hostname: options.hostname,
    port: options.port,
    reusePort: false,
    idleTimeout: options.idleTimeout ?? 0,
    maxRequestBodySize: options.maxRequestBodySize,
    development: false,
    routes,
    fetch: wrap(options.fetch),
  });
  const port = server.port ?? options.port;
  const host = options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname;
  return {
    url: `http://${host}:${port}`,
    port,
    hostname: options.hostname,
    stop: async (force = false) => {
      await server.stop(force);
    },
  };
}

/** `Bun.serve`, with a taken port said as what it is. */
function serve<T extends { hostname: string; port: number }>(options: T & Parameters<typeof Bun.serve>[0]) {
  try {
    return Bun.serve(options);
  } catch (err) {
    if ((err as { code?: unknown }).code !== "EADDRINUSE") throw err;
    throw new LoreError(
      "address_in_use",
      `port ${options.port} on ${options.hostname} is already in use by another process: stop it, or choose another --port`,
      { cause: err },
    );
  }
}
