/**
 * `listen()` wraps `Bun.serve` so a surface stays a plain `fetch(req) → Response` function. The idle
 * timeout is off by default: a slow server-sent-event stream must not be cut after 10 s of silence
 * (Bun's default).
 */

import type { Server } from "bun";

export interface ListenOptions {
  hostname: string;
  /** 0 picks a free port. */
  port: number;
  fetch: (req: Request, server: Server<undefined>) => Response | Promise<Response>;
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
  const server = Bun.serve({
    hostname: options.hostname,
    port: options.port,
    idleTimeout: options.idleTimeout ?? 0,
    maxRequestBodySize: options.maxRequestBodySize,
    fetch: options.fetch,
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
