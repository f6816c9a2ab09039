/**
 * The gateway as a `fetch(req) → Response` function. Chat requests the adapters recognise go through
 * the pipeline; every other path and method is passed through untouched. Whatever fails on our side
 * (vault, state, segmentation, a body we do not understand, one too large or too deeply nested to
 * take on) costs one line on stderr and the request goes upstream exactly as it came in: the proxy
 * never stands between a user and their model. While the vault is away, chat requests pass through
 * too, and the deps have said so once. The answer to a chat request the pipeline counted (changed or
 * not) is tapped for the usage it reports (_usage.ts), given to the store for that turn afterwards.
 */

import { describeError } from "../errors.ts";
import {
  clientAddress,
  createThrottle,
  errorResponse,
  type GuardRules,
  guardRequest,
  isPreflight,
  type Peer,
  type Throttle,
} from "../http/index.ts";
import { nestsDeeperThan } from "../json-depth.ts";
import type { Usage } from "../state/index.ts";
import { BODY_LIMITS, letOthersRun, readBounded, YIELD_FROM_BYTES } from "./_body.ts";
import type { Adapter } from "./_chat.ts";
import { sayingWhenDown } from "./_upstream-down.ts";
import { tapUsage } from "./_usage.ts";
import { CONVERSATION_HEADER } from "./conversation.ts";
import { type InjectSettings, type Outcome, type PipelineDeps, runPipeline } from "./pipeline.ts";
import { ADAPTERS, type ApiName, adapterFor } from "./protocols.ts";
import { type ForwardInput, forward, upstreamUrl } from "./proxy.ts";
import { BOOKS_HEADER, EARLIER_HEADER, LORE_HEADER, TIER_HEADER } from "./recall-turn.ts";

export const TOKEN_HEADER = "x-lorecards-token";

/** Host names besides loopback ones a gateway on loopback answers to (a reverse proxy's, a LAN name). */
export interface GuardOptions {
  allowHosts: readonly string[];
}

export interface HandlerOptions {
  upstream: URL;
  /** When set, every request must carry it in `X-Lorecards-Token`. */
  token?: string;
  settings: InjectSettings;
  deps: PipelineDeps;
  /** The upstream fetch (tests and benchmarks may pass their own). */
  fetch?: typeof fetch;
  /** Host and cross-site checks, for a gateway on loopback (off loopback the token protects it). */
  guard?: GuardOptions;
  /** Slows down wrong tokens per address; with a token and none given, http/'s defaults. */
  throttle?: Throttle;
}

/**
 * Kinds of requests told about once each, up to this many: a client probing paths must not make a
 * long-running gateway remember (or print) an unbounded list.
 */
const WARNED_KINDS = 100;

export function createHandler(given: HandlerOptions): (req: Request, peer?: Peer) => Promise<Response> {
  const promptCacheKey = given.settings.promptCacheKey ?? takesPromptCacheKey(given.upstream);
  const options = { ...given, settings: { ...given.settings, promptCacheKey } };
  const doFetch = sayingWhenDown(options.fetch ?? fetch, options.deps.warn);
  const said = new Set<string>();
  /** Says a line once per kind of request, up to WARNED_KINDS of them. */
  const sayOnce = (kind: string, line: () => string) => {
    if (said.has(kind) || said.size >= WARNED_KINDS) return;
    said.add(kind);
    options.deps.warn(line());
  };
  const rules = guardRules(options);
  return async (req, peer) => {
    const refused = guardRequest(req, rules, clientAddress(req, peer));
    if (refused) return refused;
    // A base URL may name the conversation's books (`/books/eldoria+seraphina/v1`): taken off here,
    // so neither the adapters nor the upstream ever see it.
    const { url, books } = withoutBooks(new URL(req.url));
    const target = upstreamUrl(options.upstream, url);
    // A browser sends its CORS preflight without custom headers, so it can never carry the token. It
    // has no body and reaches no card; it goes to the upstream, which decides about CORS.
    if (isPreflight(req)) return withOurHeadersAllowed(await forward(plain(target, req, doFetch)));
    const adapter = adapterFor(req.method, url.pathname);
    if (!adapter) {
      if (req.method === "POST") sayOnce(`passed:${kindOf(url.pathname)}`, () => passedThrough(url.pathname));
      return forward(plain(target, req, doFetch));
    }

    if (!options.deps.ready()) return forward(plain(target, req, doFetch));
    let read: Awaited<ReturnType<typeof readBounded>>;
    try {
      read = await readBounded(req, BODY_LIMITS.maxBytes);
    } catch (err) {
      return errorResponse("invalid_input", `could not read the request body: ${describeError(err)}`);
    }
    if (read.tooLarge) {
      const mib = BODY_LIMITS.maxBytes / 1024 / 1024;
      options.deps.warn(
        `lorecards gateway: forwarding ${url.pathname} unchanged: the body is larger than ${mib} MiB, ` +
          "more than the gateway reads; it is passed on as it came",
      );
      return forward({ ...plain(target, req, doFetch), body: read.body ?? undefined });
    }
    const raw = read.bytes;
    const outcome = await tryPipeline(adapter, req, raw, options, books);
    if (outcome && !outcome.changed && outcome.notice)
      sayOnce(`notice:${adapter.name}:${outcome.reason}`, () => {
        return `lorecards gateway: POST ${url.pathname} passed through without cards: ${outcome.reason}`;
      });
    for (const name of outcome?.quoted ?? []) sayOnce(`quoted:${name}`, () => quotedLine(name));
    const tap = usageTap(adapter, outcome, req.signal, options.deps);
    const durable = outcome?.durable;
    if (!outcome?.changed) {
      return forward({
        url: target,
        req,
        body: raw,
        bodyReplaced: false,
        injected: [],
        fetch: doFetch,
        tap,
        durable,
      });
    }
    return forward({
      url: target,
      req,
      body: outcome.body,
      bodyReplaced: true,
      injected: outcome.injected,
      fetch: doFetch,
      tap,
      durable,
    });
  };
}

/** Where a base URL names books: `/books/NAMES/…`, the names joined by `+` (or `,`). */
export const BOOKS_PREFIX = "/books/";

/** The URL without its `/books/NAMES` prefix, and the names as written; the URL as it is without one. */
export function withoutBooks(url: URL): { url: URL; books?: string } {
  if (!url.pathname.startsWith(BOOKS_PREFIX)) return { url };
  const end = url.pathname.indexOf("/", BOOKS_PREFIX.length);
  if (end === -1) return { url };
  const rest = new URL(url);
  rest.pathname = url.pathname.slice(end);
  return { url: rest, books: decodeURIComponentSafe(url.pathname.slice(BOOKS_PREFIX.length, end)) };
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * What a request passed through is, for saying so once: its path with the parts that name a model,
 * a project, a region or a deployment left out (Bedrock's `/model/ID/converse`, Vertex AI's
 * `/v1/projects/P/locations/L/publishers/google/models/M:generateContent`).
 */
export function kindOf(pathname: string): string {
  return pathname
    .split("/")
    .map((part, i, all) => (i > 0 && NAMED_BY_PREVIOUS.has(all[i - 1]!) ? part.replace(/^[^:]+/, "*") : part))
    .join("/");
}

const NAMED_BY_PREVIOUS = new Set([
  "models",
  "model",
  "projects",
  "locations",
  "publishers",
  "deployments",
  "tunedModels",
]);

function passedThrough(pathname: string): string {
  const spoken = ADAPTERS.map((a) => a.paths[0]).join(", ");
  const doubled = pathname.includes("/v1/v1/")
    ? " (a doubled /v1: give this client the base URL without /v1)"
    : "";
  return `lorecards gateway: POST ${kindOf(pathname)} passed through without cards: the gateway writes them only into ${spoken}${doubled}`;
}

function quotedLine(name: string): string {
  return (
    `lorecards gateway: "${name}" is already in the request (is the same book active in the client too, ` +
    "such as SillyTavern's World Info?): the gateway does not send it a second time"
  );
}

function plain(url: string, req: Request, doFetch: typeof fetch): ForwardInput {
  return { url, req, bodyReplaced: false, injected: [], fetch: doFetch };
}

/**
 * On loopback, browsers are the danger: a rebound DNS name, and a simple (form or text/plain) POST
 * from any page, which needs no preflight. A page's JSON comes only after a preflight the upstream
 * answers, and SDKs and CLIs send no Origin, so they meet neither rule. Off loopback the token guards.
 */
function guardRules(options: HandlerOptions): GuardRules {
  return {
    ...gatewayGuard(options.guard),
    token: options.token,
    tokenHeaders: [TOKEN_HEADER],
    throttle: options.token ? (options.throttle ?? createThrottle()) : undefined,
  };
}

/** The gateway's Host and cross-site rules (a gateway on loopback has them), without a token. */
export function gatewayGuard(guard: GuardOptions | undefined): GuardRules {
  return {
    ...(guard && {
      hosts: guard.allowHosts,
      loopback: true,
      hostHint: "see --allow-host",
      crossSite: "json",
    }),
    preflight: "pass",
  };
}

/**
 * Whether an upstream takes OpenAI's `prompt_cache_key` unasked: OpenAI's own API. Servers that speak
 * its protocol differ (some refuse a field they do not know with a 400 or 422), so for them it is
 * `--prompt-cache-key`'s to say.
 */
export function takesPromptCacheKey(upstream: URL): boolean {
  return upstream.hostname.toLowerCase() === "api.openai.com";
}

/**
 * A CORS preflight, passed on to the upstream (it decides about CORS): it cannot carry a token, has no
 * body and reaches no card, so a gateway of tenants answers it for no tenant in particular.
 */
export async function passPreflight(
  upstream: URL,
  req: Request,
  doFetch: typeof fetch = fetch,
): Promise<Response> {
  const target = upstreamUrl(upstream, new URL(req.url));
  return withOurHeadersAllowed(await forward(plain(target, req, doFetch)));
}

/** The upstream knows nothing of our headers: a browser may send them only if the preflight lists them. */
function withOurHeadersAllowed(res: Response): Response {
  const allowed = res.headers.get("access-control-allow-headers");
  if (allowed === null || allowed.trim() === "*") return res;
  const ours = [
    TOKEN_HEADER,
    CONVERSATION_HEADER,
    LORE_HEADER,
    TIER_HEADER,
    EARLIER_HEADER,
    BOOKS_HEADER,
  ].filter((h) => !allowed.toLowerCase().includes(h));
  if (ours.length > 0) res.headers.set("access-control-allow-headers", [allowed, ...ours].join(", "));
  return res;
}

async function tryPipeline(
  adapter: Adapter<ApiName>,
  req: Request,
  raw: Uint8Array,
  options: HandlerOptions,
  books: string | undefined,
): Promise<Outcome | null> {
  const { deps } = options;
  try {
    if (req.headers.get("content-encoding")) throw new Error("the request body is content-encoded");
    if (nestsDeeperThan(raw, BODY_LIMITS.maxDepth)) {
      throw new Error(`the body is nested deeper than ${BODY_LIMITS.maxDepth} levels`);
    }
    const text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
    const large = raw.byteLength >= YIELD_FROM_BYTES;
    await letOthersRun(large);
    const body: unknown = JSON.parse(text);
    await letOthersRun(large);
    // The books a base URL names are the books a header names: one question for recall-turn.ts.
    const headers = books === undefined ? req.headers : new Headers(req.headers);
    if (books !== undefined) headers.set(BOOKS_HEADER, books);
    return await runPipeline(adapter, body, headers, options.settings, deps, raw.byteLength);
  } catch (err) {
    deps.warn(`lorecards gateway: forwarding ${new URL(req.url).pathname} unchanged: ${describeError(err)}`);
    return null;
  }
}

/**
 * The tap for a counted turn's answer: its usage goes to the store for that conversation and turn,
 * unless the vault has gone away since. Recording it is a convenience: a failure is one line on
 * stderr, never the response.
 */
function usageTap(
  adapter: Adapter,
  outcome: Outcome | null,
  signal: AbortSignal,
  deps: PipelineDeps,
): ForwardInput["tap"] {
  const conversation = outcome?.conversation;
  const turn = outcome?.turn;
  if (conversation === undefined || turn === undefined) return undefined;
  const record = async (usage: Usage) => {
    // A vault that went away meanwhile has been (or is now) reported once, as for requests.
    if (!deps.ready()) return;
    try {
      await (await deps.store()).recordUsage(conversation, turn, usage, deps.now());
    } catch (err) {
      deps.warn(
        `lorecards gateway: usage of ${conversation} turn ${turn} not recorded (${describeError(err)})`,
      );
    }
  };
  return (body, headers) =>
    tapUsage(body, { shape: adapter.usage, headers, signal, onUsage: (usage) => void record(usage) });
}
