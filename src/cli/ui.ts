// `lorecards ui`: the web editor and its HTTP API on one port (default 8766). Off loopback it refuses
// to start without --token (of 16 characters or more). With --gateway-upstream the gateway runs in the
// same process on its own port, so one service on a home server does both. Every response carries the
// editor's security headers; a request without Host is answered 400 (http/ listen).
import os from "node:os";
import { defineCommand } from "citty";
import { createApi } from "../api/index.ts";
import { LoreError } from "../errors.ts";
import { baseUrls, GATEWAY_DEFAULTS, startGateway } from "../gateway/index.ts";
import { isLoopbackHost, type Listener, listen, type ThrottleOptions } from "../http/index.ts";
import { type Engine, openEngine } from "../recall/index.ts";
import { uiRoutes } from "../ui/index.ts";
import {
  hostList,
  isDefaultVault,
  portNumber,
  printJsonLine,
  tokenFrom,
  untilShutdown,
  vaultArg,
  vaultPath,
} from "./_shared.ts";

export const UI_DEFAULTS = { host: "127.0.0.1", port: 8766 } as const;

export const uiCommand = defineCommand({
  meta: { name: "ui", description: "the web editor and HTTP API" },
  args: {
    host: {
      type: "string",
      description: `where to listen (default ${UI_DEFAULTS.host}); off localhost needs --token`,
    },
    port: { type: "string", description: `port (default ${UI_DEFAULTS.port}; 0 = any free port)` },
    token: {
      type: "string",
      description: "require Authorization: Bearer <token> on the API; mandatory off localhost",
    },
    "allow-host": {
      type: "string",
      description: "extra host names the page may be reached by (comma-separated), e.g. a reverse proxy's",
      valueHint: "NAMES",
    },
    log: {
      type: "boolean",
      default: true,
      description: "let /api/try?log=1 record tries in hits.jsonl",
      negativeDescription: "never write hits.jsonl (overrides ?log=1)",
    },
    "gateway-upstream": {
      type: "string",
      description: "also run the gateway in this process, in front of URL",
      valueHint: "URL",
    },
    "gateway-port": { type: "string", description: `the gateway's port (default ${GATEWAY_DEFAULTS.port})` },
    ...vaultArg,
    json: { type: "boolean", description: "print one JSON line {url, vault, gateway?} once listening" },
  },
  async run({ args }) {
    const host = args.host ?? UI_DEFAULTS.host;
    const port = portNumber(args.port) ?? UI_DEFAULTS.port;
    const token = tokenFrom(args);
    if (!isLoopbackHost(host) && !token) {
      throw new LoreError(
        "usage",
        `listening on ${host} needs --token: anyone on the network could edit your cards`,
      );
    }
    const engine = await openEngine(vaultPath(args), { watch: true, create: isDefaultVault(args) });
    const extra = hostList(args["allow-host"]);
    const server = await serveEditor({
      engine,
      host,
      port,
      token,
      allowHosts: extra,
      noLog: args.log === false,
    });
    const realPort = server.port;
    const gateway = args["gateway-upstream"]
      ? startGateway({
          vaultRoot: engine.vault.root,
          sharedEngine: engine,
          upstream: args["gateway-upstream"],
          host,
          port: portNumber(args["gateway-port"], "--gateway-port"),
          token,
          allowHosts: extra,
          log: args.log !== false,
        })
      : undefined;
    // Listen for the stop signals before saying "ready": a supervisor may stop us the moment it reads it.
    const stopped = untilShutdown(() => {
      engine.close();
      return Promise.all([server.stop(true), gateway?.close()]);
    });
    if (args.json) {
      const url = `http://${host.includes(":") ? `[${host}]` : host}:${realPort}`;
      const urls = gateway && baseUrls(gateway.url);
      printJsonLine({
        url,
        vault: engine.vault.root,
        ...(urls ? { gateway: urls.openai, gateway_anthropic: urls.anthropic } : {}),
      });
    } else {
      announce(host, realPort, token, engine.vault.root);
      if (gateway) {
        const urls = baseUrls(gateway.url);
        process.stderr.write(`  gateway → ${args["gateway-upstream"]}\n`);
        process.stderr.write(`    OpenAI clients' base URL:    ${urls.openai}\n`);
        process.stderr.write(`    Anthropic clients' base URL: ${urls.anthropic}\n`);
      }
    }
    await stopped;
  },
});

export interface EditorOptions {
  engine: Engine;
  host: string;
  /** 0 picks a free port. */
  port: number;
  token?: string;
  /** Extra names the page may be reached by (`--allow-host`). */
  allowHosts?: readonly string[];
  noLog?: boolean;
  throttle?: Partial<ThrottleOptions>;
}

/** The page and the API on one port: static routes first, the API for everything else. */
export async function serveEditor(options: EditorOptions): Promise<Listener> {
  const ui = await uiRoutes();
  let api: ReturnType<typeof createApi> | undefined;
  const server = listen({
    hostname: options.host,
    port: options.port,
    idleTimeout: 30,
    routes: ui.routes,
    headers: ui.headers,
    fetch: (req, peer) => api!(req, peer),
  });
  // The API checks the Host's port, so it is made once the real port is known.
  api = createApi({
    engine: options.engine,
    hosts: [...servedHosts(options.host), ...(options.allowHosts ?? [])],
    port: server.port,
    token: options.token,
    noLog: options.noLog,
    throttle: options.throttle,
  });
  return server;
}

function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

/** Every name a browser may put in the Host header to reach this server; nothing else is served. */
export function servedHosts(host: string): string[] {
  const names = new Set<string>([host.toLowerCase().replace(/^\[|\]$/g, "")]);
  if (isLoopbackHost(host) || isWildcard(host))
    for (const n of ["localhost", "127.0.0.1", "::1"]) names.add(n);
  if (isWildcard(host)) {
    const name = os.hostname().toLowerCase();
    names.add(name);
    names.add(`${name}.local`);
    for (const list of Object.values(os.networkInterfaces())) {
      for (const a of list ?? []) names.add(a.address.toLowerCase());
    }
  }
  return [...names];
}

function lanAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((a) => a.family === "IPv4" && !a.internal)
    .map((a) => a.address);
}

function announce(host: string, port: number, token: string | undefined, root: string): void {
  const query = token ? `/?token=${encodeURIComponent(token)}` : "/";
  const shown = isWildcard(host) ? lanAddresses() : [host.includes(":") ? `[${host}]` : host];
  process.stderr.write(`lorecards ui: editing ${root}\n`);
  for (const h of shown.length > 0 ? shown : ["127.0.0.1"])
    process.stderr.write(`  open http://${h}:${port}${query}\n`);
}
