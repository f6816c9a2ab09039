/**
 * The gateway: a proxy in front of an OpenAI-compatible or Anthropic API that writes cards into chat
 * requests and passes everything else through untouched. It speaks the protocols of protocols.ts, one
 * adapter each: OpenAI Chat Completions (`POST /v1/chat/completions`), Anthropic Messages (`POST
 * /v1/messages`) and OpenAI Responses (`POST /v1/responses`). It keeps each conversation append-only
 * by replaying earlier blocks (replay.ts), fails open on every internal error, and never stores or
 * logs the client's keys or the model's replies. It owns the adapters, header hygiene and the request
 * pipeline (pipeline.ts, in named phases); it never reads argv (cli/ does) and never decides which
 * cards fire (recall/ does).
 */

import { DEFAULTS, type InjectPlace } from "../defaults.ts";
import { LoreError } from "../errors.ts";
import { isLoopbackHost, type Listener, listen } from "../http/index.ts";
import type { Engine, EngineOptions, RecallOptions } from "../recall/index.ts";
import type { StyleOptions } from "../style/index.ts";
import { vaultDeps } from "./deps.ts";
import { createHandler, type GuardOptions } from "./handler.ts";
import type { InjectSettings } from "./pipeline.ts";
import { tenantGateway } from "./tenants.ts";

export type { Adapter, ChatView, Edit } from "./_chat.ts";
export { anthropicAdapter } from "./anthropic.ts";
export { CONVERSATION_HEADER, clientConversation, findConversation } from "./conversation.ts";
export { type VaultDeps, type VaultDepsOptions, vaultDeps } from "./deps.ts";
export {
  createHandler,
  type GuardOptions,
  type HandlerOptions,
  TOKEN_HEADER,
  takesPromptCacheKey,
} from "./handler.ts";
export { openaiAdapter } from "./openai.ts";
export { type InjectSettings, type Outcome, type PipelineDeps, runPipeline } from "./pipeline.ts";
export { ADAPTERS, type ApiName, adapterFor, adapterNamed } from "./protocols.ts";
export { encodeKey, INJECTED_HEADER } from "./proxy.ts";
export { EARLIER_HEADER, LORE_HEADER, TIER_HEADER, WITH_HEADER } from "./recall-turn.ts";
export { planReplay, type ReplayPlan } from "./replay.ts";
export { responsesAdapter } from "./responses.ts";
export { type TenantGatewayOptions, tenantGateway } from "./tenants.ts";

export interface GatewayOptions {
  vaultRoot: string;
  upstream: string;
  host?: string;
  port?: number;
  inject?: InjectPlace;
  window?: number;
  reinjectAfter?: number;
  budget?: number;
  framing?: string;
  token?: string;
  /** Host names besides loopback ones a gateway on loopback answers to (`--allow-host`). */
  allowHosts?: readonly string[];
  /** Write hits.jsonl (default true; `--no-log` turns it off). */
  log?: boolean;
  /** `--prompt-cache-key` / `--no-prompt-cache-key`; unset: only toward OpenAI's own API (InjectSettings). */
  promptCacheKey?: boolean;
  /** Names for macros, a token budget, the reach (`--char`, `--user`, `--budget-tokens`, `--reach`). */
  recall?: Pick<RecallOptions, "names" | "budgetTokens" | "reach" | "lore" | "books">;
  engine?: EngineOptions;
  /** Use this already-open engine instead of opening one (see VaultDepsOptions.sharedEngine). */
  sharedEngine?: Engine;
  fetch?: typeof fetch;
  warn?: (line: string) => void;
  /** Style memory learns from each new user message (default true; `--no-learn` turns it off). */
  learn?: boolean;
  /** The style book's options (its clock). */
  style?: StyleOptions;
  /** `--style-brief`: each conversation's boot block carries the style brief after the guide. */
  styleBrief?: boolean;
  /** Where conversation state lives (state/ `openStore`, `--store`); the vault's own state.db by default. */
  state?: string;
  /**
   * A tenants file (`--tenants`): serve every tenant it lists, each over its own vault and state
   * (tenants.ts); `vaultRoot` is then not used.
   */
  tenants?: string;
  /** With `tenants`: how long an idle tenant stays open, and how many stay open at most (tenants/). */
  tenantPool?: { idleMs?: number; maxOpen?: number };
}

export const GATEWAY_DEFAULTS = {
  host: DEFAULTS.host,
  port: DEFAULTS.gatewayPort,
  inject: DEFAULTS.inject,
  window: DEFAULTS.scanDepth,
  log: true,
} as const satisfies Partial<GatewayOptions>;

export interface Gateway extends Listener {
  /**
   * The gateway's recall engine, opened on first use: the hook server beside it answers on it. None
   * for a gateway of tenants, which has no one vault.
   */
  engine?: () => Promise<Engine>;
  close(): Promise<void>;
}

/**
 * What each client family is told to use. OpenAI SDKs, Codex, opencode and SillyTavern take a base URL
 * that ends in `/v1` and add `/chat/completions` or `/responses`; Claude Code (`ANTHROPIC_BASE_URL`) and
 * the Anthropic SDKs add `/v1/messages` themselves, so theirs is the bare origin.
 */
export function baseUrls(url: string): { openai: string; anthropic: string } {
  return { openai: `${url}/v1`, anthropic: url };
}

/** Validates the options, then listens. Off loopback, a token is mandatory. */
export function startGateway(options: GatewayOptions): Gateway {
  const o = { ...GATEWAY_DEFAULTS, ...withoutUndefined(options) };
  const upstream = parseUpstream(o.upstream);
  // A gateway of tenants always asks for a token: each tenant's own.
  if (!isLoopbackHost(o.host) && !o.token && o.tenants === undefined) {
    throw new LoreError(
      "usage",
      `listening on ${o.host} needs --token: anyone on the network could use your API key`,
    );
  }
  for (const [flag, v] of [
    ["--scan-depth", o.window],
    ["--reinject-after", o.reinjectAfter ?? 0],
    ["--budget", o.budget ?? 0],
  ] as const) {
    if (!Number.isInteger(v) || v < 0)
      throw new LoreError("usage", `${flag} must be a whole number ≥ 0, got ${v}`);
  }
  const settings: InjectSettings = {
    inject: o.inject,
    window: o.window,
    reinjectAfter: o.reinjectAfter,
    budget: o.budget,
    framing: o.framing,
    log: o.log,
    recall: o.recall,
    promptCacheKey: o.promptCacheKey,
  };
  // Off loopback the token is what keeps strangers out; on loopback, browsers are the danger.
  const guard = isLoopbackHost(o.host)
    ? { allowHosts: (o.allowHosts ?? []).map((h) => h.toLowerCase()) }
    : undefined;
  if (o.tenants !== undefined) return listenTenants(o, upstream, settings, guard);
  const deps = vaultDeps({
    vaultRoot: o.vaultRoot,
    engine: o.engine,
    sharedEngine: o.sharedEngine,
    warn: o.warn,
    learn: o.learn,
    style: o.style,
    styleBrief: o.styleBrief,
    state: o.state,
  });
  const handler = createHandler({ upstream, token: o.token, settings, deps, fetch: o.fetch, guard });
  // No cap of our own on request bodies: Bun's default (128 MiB) would refuse uploads the upstream
  // takes (OpenAI's /v1/files accepts 512 MB), and a proxy must pass them through.
  const listener = listen({
    hostname: o.host,
    port: o.port,
    fetch: handler,
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  });
  return {
    ...listener,
    engine: () => deps.engine(),
    close: async () => {
      await listener.stop(true);
      await deps.close();
    },
  };
}

/** The gateway of every tenant in `o.tenants`, on one listener (tenants.ts). */
function listenTenants(
  o: GatewayOptions & { host: string; port: number },
  upstream: URL,
  settings: InjectSettings,
  guard: GuardOptions | undefined,
): Gateway {
  const tenants = tenantGateway({
    tenants: o.tenants!,
    upstream,
    settings,
    store: o.state,
    guard,
    fetch: o.fetch,
    ...o.tenantPool,
    deps: { warn: o.warn, learn: o.learn, style: o.style, styleBrief: o.styleBrief },
  });
  const listener = listen({
    hostname: o.host,
    port: o.port,
    fetch: tenants.fetch,
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  });
  return {
    ...listener,
    close: async () => {
      await listener.stop(true);
      await tenants.close();
    },
  };
}

/** Flags the user did not give arrive as undefined and must not hide the defaults. */
function withoutUndefined<T extends object>(options: T): T {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as T;
}

function parseUpstream(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch (err) {
    throw new LoreError("usage", `--upstream is not a URL: ${value}`, { cause: err });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new LoreError("usage", `--upstream must be http(s), got ${url.protocol}`);
  }
  return url;
}
