// `lorecards ui`: the web editor and its HTTP API on one port. Off loopback it refuses
// to start without --token (of 16 characters or more). With --gateway-upstream the gateway runs in the
// same process on its own port, so one service on a home server does both. Every response carries the
// editor's security headers; a request without Host is answered 400 (http/ listen).
import os from "node:os";
import { createApi } from "../api/index.ts";
import { tenantApi } from "../api/tenants.ts";
import { DEFAULTS } from "../defaults.ts";
import { LoreError, warnOnStderr } from "../errors.ts";
import { baseUrls } from "../gateway/index.ts";
import { isLoopbackHost, type Listener, listen, type Peer, type ThrottleOptions } from "../http/index.ts";
import { type Engine, openEngine } from "../recall/index.ts";
import { openStore, type Store } from "../state/index.ts";
import type { StyleOptions } from "../style/index.ts";
import type { TenantsServer } from "../tenants/index.ts";
import { uiRoutes } from "../ui/index.ts";
import { allowHostArg, listenArgs, logArg } from "./_args.ts";
import { backupsArg, startDailyBackups } from "./_backups.ts";
import { startGatewayBeside } from "./_gateway-beside.ts";
import { startHookServer } from "./_hook-server.ts";
import { selfRefresher } from "./_refresher.ts";
import {
  defineCommand,
  hostList,
  portNumber,
  printJsonLine,
  tokenFrom,
  untilShutdown,
  vaultArg,
} from "./_shared.ts";
import { namedStore, storeArg } from "./_store.ts";
import { styleOptions } from "./_style-clock.ts";
import { type TenantFlags, tenantPoolOf, tenantsArgs, tenantsFileOf } from "./_tenants.ts";
import { isDefaultVault, vaultPath } from "./_vault.ts";

export const uiCommand = defineCommand({
  meta: { name: "ui", description: "the web editor and HTTP API" },
  args: {
    ...listenArgs("the editor", DEFAULTS.uiPort),
    token: {
      type: "string",
      description: "require Authorization: Bearer <token> on the API; mandatory off localhost",
    },
    "show-token": {
      type: "boolean",
      description:
        "print the editor's link with its ?token= (never printed otherwise: logs keep what a service prints)",
    },
    ...allowHostArg("extra host names the page may be reached by (comma-separated), e.g. a reverse proxy's"),
    ...logArg("let /api/try?log=1 record tries in hits.jsonl", "never write hits.jsonl (overrides ?log=1)"),
    ...backupsArg,
    "gateway-upstream": {
      type: "string",
      description: "also run the gateway in this process, in front of URL",
      valueHint: "URL",
    },
    "gateway-port": {
      type: "string",
      description: "the gateway's port",
      default: String(DEFAULTS.gatewayPort),
    },
    ...storeArg,
    ...tenantsArgs(" (and its gateway, with --gateway-upstream)"),
    ...vaultArg,
    json: { type: "boolean", description: "print one JSON line {url, vault, gateway?} once listening" },
  },
  async run({ args }) {
    const host = args.host;
    const port = portNumber(args.port) ?? DEFAULTS.uiPort;
    const token = tokenFrom(args);
    // Tenants bring their own tokens: the server's --token is for a server of one vault.
    if (tenantsFileOf(args) !== undefined) return serveTenantsEditor(args, host, port);
    if (!isLoopbackHost(host) && !token) {
      throw new LoreError(
        "usage",
        `listening on ${host} needs --token: anyone on the network could edit your cards`,
      );
    }
    const root = vaultPath(args);
    const engine = await openEngine(root, {
      watch: true,
      persist: true, // a rebuild after an edit is saved, so the next hook or `try` starts warm
      refresher: selfRefresher(root),
      create: isDefaultVault(args),
    });
    const extra = hostList(args["allow-host"]);
    // A store named by URL is opened once and kept (a server's pool); the vault's own is opened per request.
    const named = namedStore(args);
    const store = named === undefined ? undefined : await openStore(named);
    const server = await serveEditor({
      store,
      engine,
      host,
      port,
      token,
      allowHosts: extra,
      noLog: args.log === false,
      style: styleOptions(),
    });
    const realPort = server.port;
    const gateway = await startGatewayBeside(
      args["gateway-upstream"]
        ? {
            vaultRoot: engine.vault.root,
            sharedEngine: engine,
            upstream: args["gateway-upstream"],
            host,
            port: portNumber(args["gateway-port"], "--gateway-port"),
            token,
            allowHosts: extra,
            log: args.log !== false,
            style: styleOptions(),
            state: named,
          }
        : undefined,
      async () => {
        engine.close();
        await server.stop(true);
        await store?.close();
      },
    );
    const hooks = await startHookServer({
      vaultRoot: engine.vault.root,
      engine: async () => engine,
      state: named,
      warn: warnOnStderr,
    });
    // Listen for the stop signals before saying "ready": a supervisor may stop us the moment it reads it.
    let backups: ReturnType<typeof startDailyBackups>;
    const stopped = untilShutdown(async () => {
      await backups?.stop();
      await hooks?.close();
      engine.close();
      await Promise.all([server.stop(true), gateway?.close()]);
      await store?.close();
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
      announce(host, realPort, token, engine.vault.root, args["show-token"] === true);
      if (gateway) {
        const urls = baseUrls(gateway.url);
        process.stderr.write(`  gateway → ${args["gateway-upstream"]}\n`);
        process.stderr.write(`    OpenAI clients' base URL:    ${urls.openai}\n`);
        process.stderr.write(`    Anthropic clients' base URL: ${urls.anthropic}\n`);
      }
    }
    backups = startDailyBackups(engine.vault.root, args);
    await stopped;
  },
});

/**
 * `ui --tenants FILE`: the page for everyone, the API of the tenant whose token the page sends, and
 * with --gateway-upstream the gateway of tenants beside it (api/ and gateway/ tenants.ts).
 */
async function serveTenantsEditor(
  args: TenantFlags & {
    store?: string;
    log?: boolean;
    json?: boolean;
    "allow-host"?: string;
    "gateway-upstream"?: string;
    "gateway-port"?: string;
  },
  host: string,
  port: number,
): Promise<void> {
  const tenants = tenantsFileOf(args)!;
  const pool = tenantPoolOf(args);
  const store = namedStore(args);
  const extra = hostList(args["allow-host"]);
  const server = await serveEditor({
    tenants,
    pool,
    store,
    host,
    port,
    allowHosts: extra,
    noLog: args.log === false,
    style: styleOptions(),
  });
  const gateway = await startGatewayBeside(
    args["gateway-upstream"]
      ? {
          vaultRoot: "",
          tenants,
          tenantPool: pool,
          state: store,
          upstream: args["gateway-upstream"],
          host,
          port: portNumber(args["gateway-port"], "--gateway-port"),
          allowHosts: extra,
          log: args.log !== false,
          style: styleOptions(),
        }
      : undefined,
    () => server.stop(true),
  );
  const stopped = untilShutdown(() => Promise.all([server.stop(true), gateway?.close()]));
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${server.port}`;
  const urls = gateway && baseUrls(gateway.url);
  if (args.json)
    printJsonLine({
      url,
      tenants,
      ...(urls ? { gateway: urls.openai, gateway_anthropic: urls.anthropic } : {}),
    });
  else {
    process.stderr.write(
      `lorecards ui: the tenants of ${tenants}\n  each opens ${url}/?token=<their token>\n`,
    );
    if (urls) process.stderr.write(`  gateway → ${args["gateway-upstream"]}: base URL ${urls.openai}\n`);
  }
  await stopped;
}

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
  /** Style memory's options (its clock). */
  style?: StyleOptions;
  /** The state store, opened and closed by the caller; the vault's own by default. */
  store?: Store;
}

/** The page and the API on one port: static routes first, the API for everything else. */
export async function serveEditor(options: EditorOptions | TenantEditorOptions): Promise<Listener> {
  const ui = await uiRoutes();
  let api: ((req: Request, peer?: Peer) => Promise<Response>) | undefined;
  let tenants: TenantsServer | undefined;
  const server = listen({
    hostname: options.host,
    port: options.port,
    idleTimeout: 30,
    routes: ui.routes,
    headers: ui.headers,
    fetch: (req, peer) => api!(req, peer),
  });
  // The API checks the Host's port, so it is made once the real port is known.
  const hosts = [...servedHosts(options.host), ...(options.allowHosts ?? [])];
  if ("tenants" in options) {
    tenants = tenantApi({
      tenants: options.tenants,
      hosts,
      port: server.port,
      store: options.store,
      noLog: options.noLog,
      style: options.style,
      warn: (line) => process.stderr.write(`${line}\n`),
      ...options.pool,
    });
    api = tenants.fetch;
    const open = tenants;
    return {
      ...server,
      stop: async (force) => {
        await server.stop(force);
        await open.close();
      },
    };
  }
  api = createApi({
    engine: options.engine,
    hosts,
    port: server.port,
    token: options.token,
    noLog: options.noLog,
    throttle: options.throttle,
    style: options.style,
    store: options.store,
  });
  return server;
}

/** The editor of every tenant of a tenants file (`ui --tenants`): no vault of its own. */
export interface TenantEditorOptions {
  tenants: string;
  /** How long an idle tenant stays open, how many at most (tenants/). */
  pool?: { idleMs?: number; maxOpen?: number };
  /** The server's `--store`: a Postgres database, in which each tenant gets a space of its own. */
  store?: string;
  host: string;
  port: number;
  allowHosts?: readonly string[];
  noLog?: boolean;
  style?: StyleOptions;
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

/**
 * Where to open the editor, on stderr. The token is in the link only with --show-token: under systemd,
 * stderr is the journal, which any member of `adm` or `systemd-journal` may read.
 */
function announce(
  host: string,
  port: number,
  token: string | undefined,
  root: string,
  showToken: boolean,
): void {
  const query = token && showToken ? `/?token=${encodeURIComponent(token)}` : "/";
  const shown = isWildcard(host) ? lanAddresses() : [host.includes(":") ? `[${host}]` : host];
  process.stderr.write(`lorecards ui: editing ${root}\n`);
  for (const h of shown.length > 0 ? shown : ["127.0.0.1"])
    process.stderr.write(`  open http://${h}:${port}${query}\n`);
  if (token && !showToken)
    process.stderr.write(
      "  add ?token=<your token> to the link once on each device (--show-token prints it)\n",
    );
}
