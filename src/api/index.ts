/**
 * api/ owns the HTTP API behind the web editor (docs/HTTP-API.md): a `fetch(req) → Response` function
 * over one vault, behind http/'s guards (Host, Origin, `X-Lorecards: 1` on writes, an optional bearer
 * token with a throttle on wrong ones) and body size limits. Every error is `{"error": code, "detail": message}`
 * with the status of its LoreError code. It never listens on a socket (cli/ does), serves no page (ui/ does) and never
 * parses cards or matches text itself: vault/, recall/, check/, state/ and interop/ do.
 */
import { LoreError } from "../errors.ts";
import {
  clientAddress,
  createThrottle,
  errorResponse,
  type GuardRules,
  guardRequest,
  loreErrorResponse,
  type Peer,
  refuseHostless,
  type ThrottleOptions,
} from "../http/index.ts";
import type { Engine } from "../recall/index.ts";
import { openStore, type Store, stateUrl } from "../state/index.ts";
import type { StyleOptions } from "../style/index.ts";
import { MAIN_BOOK } from "../vault/index.ts";
import * as books from "./_books.ts";
import { bookParam } from "./_books.ts";
import * as cardList from "./_card-list.ts";
import * as door from "./_door.ts";
import * as find from "./_find.ts";
import * as health from "./_health.ts";
import * as history from "./_history.ts";
import * as library from "./_library.ts";
import * as routes from "./_routes.ts";
import { Shelf } from "./_shelf.ts";
import * as usage from "./_stats.ts";
import * as steps from "./_steps.ts";
import * as style from "./_style.ts";

export interface ApiOptions {
  /** The engine over the vault (recall for /api/try; its vault is the one edited). */
  engine: Engine;
  /** Host names (without port) the server answers to; anything else is refused (DNS rebinding). */
  hosts: readonly string[];
  /** The port the server listens on; a Host header naming another port is refused. */
  port?: number;
  /** When set, every API request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** How wrong tokens are slowed down (http/ THROTTLE_DEFAULTS: 5 a minute, then 429 for a minute). */
  throttle?: Partial<ThrottleOptions>;
  /** Never write hits.jsonl, whatever `?log=1` says. */
  noLog?: boolean;
  /**
   * The state store holding the hit log and the conversations, opened and closed by the caller; by
   * default the vault's own, opened for each request that reads them (the hit log opens no database).
   */
  store?: Store;
  /** Body limits in bytes. */
  limits?: { json?: number; import?: number };
  now?: () => Date;
  /** Style memory's options (its clock: `$LORECARDS_STYLE_NOW`, read by cli/). */
  style?: StyleOptions;
}

export const API_DEFAULTS = { json: 1024 * 1024, import: 32 * 1024 * 1024 } as const;

type Handler = (ctx: routes.Context, req: Request, url: URL, kind: string, key: string) => unknown;

const importHandler: Handler = (c, r, u) => books.importLorebook(c, r, u);

/**
 * The context of each book a request may be about (`?book=NAME`): that book's engine, vault and shelf,
 * the vault's state and settings otherwise; made on first use, and anew when the book's folder moved.
 */
function bookContexts(main: routes.Context): (book: string | undefined) => routes.Context {
  const made = new Map<string, routes.Context>();
  return (book) => {
    if (book === undefined || book === "auto") return main;
    const engine = main.engine.book(book);
    if (!engine)
      throw new LoreError("not_found", `no book "${book}" in this vault (GET /api/books lists them)`);
    let ctx = made.get(book);
    if (!ctx || ctx.engine !== engine) {
      ctx = { ...main, vault: engine.vault, engine, book, shelf: new Shelf(engine.vault) };
      made.set(book, ctx);
    }
    return ctx;
  };
}

/** Method + path pattern → endpoint. `:kind` and `:key` are one percent-decoded path segment each. */
const TABLE: [string, string, Handler][] = [
  ["GET", "books", (c) => library.books(c)],
  ["GET", "kinds", (c) => routes.kinds(c)],
  ["GET", "cards", (c, r, u) => cardList.listCards(c, r, u)],
  ["POST", "cards", (c, r) => routes.postCard(c, r)],
  ["GET", "cards/:kind/:key", (c, _r, _u, kind, key) => routes.getCard(c, kind, key)],
  ["PUT", "cards/:kind/:key", (c, r, _u, kind, key) => routes.putCard(c, r, kind, key)],
  ["PATCH", "cards/:kind/:key", (c, r, _u, kind, key) => routes.patchCard(c, r, kind, key)],
  ["DELETE", "cards/:kind/:key", (c, r, _u, kind, key) => routes.deleteCard(c, r, kind, key)],
  ["POST", "cards/:kind/:key/restore", (c, r, _u, kind, key) => routes.restore(c, r, kind, key)],
  ["GET", "cards/:kind/:key/history", (c, _r, u, kind, key) => history.cardHistory(c, u, kind, key)],
  ["POST", "cards/:kind/:key/revert", (c, r, _u, kind, key) => history.revert(c, r, kind, key)],
  ["GET", "cards/:kind/:key/links", (c, _r, _u, kind, key) => find.links(c, kind, key)],
  ["POST", "bulk", (c, r) => steps.bulk(c, r)],
  ["GET", "history", (c, _r, u) => steps.steps(c, u)],
  ["GET", "history/:key", (c, _r, _u, _kind, id) => steps.step(c, id)],
  ["POST", "history/:key/undo", (c, r, _u, _kind, id) => steps.undo(c, r, id)],
  ["GET", "search", (c, _r, u) => find.search(c, u)],
  ["GET", "facts", (c) => find.facts(c)],
  ["GET", "budget", (c) => find.budget(c)],
  ["POST", "try", (c, r, u) => routes.tryText(c, r, u)],
  ["POST", "explain", (c, r) => door.explainText(c, r)],
  ["GET", "conversations", (c) => door.conversations(c)],
  ["GET", "conversations/:key", (c, _r, _u, _kind, id) => door.conversationTurns(c, id)],
  ["PUT", "conversations/:key", (c, r, _u, _kind, id) => door.nameConversation(c, r, id)],
  ["GET", "recent", (c, _r, u) => routes.recent(c, u)],
  ["GET", "stats", (c, _r, u) => usage.stats(c, u)],
  ["GET", "health/cards", (c) => health.cardHealth(c)],
  ["GET", "checkup", (c) => routes.checkup(c)],
  ["POST", "import", importHandler],
  ["GET", "export", (c, _r, u) => books.exportLorebook(c, u)],
  ["GET", "style", (c, _r, u) => style.habits(c, u)],
  ["GET", "style/brief", (c, _r, u) => style.brief(c, u)],
  ["GET", "style/score", (c, _r, u) => style.score(c, u)],
  ["POST", "style/habits/:key/pin", (c, _r, _u, _kind, id) => style.pin(c, id, true)],
  ["POST", "style/habits/:key/unpin", (c, _r, _u, _kind, id) => style.pin(c, id, false)],
  ["DELETE", "style/habits/:key", (c, _r, _u, _kind, id) => style.forget(c, id)],
  ["POST", "style/pause", (c) => style.learning(c, false)],
  ["POST", "style/resume", (c) => style.learning(c, true)],
];

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new LoreError("invalid_key", `not a valid percent-encoded name: ${segment}`);
  }
}

function match(
  method: string,
  rest: string[],
): { handler?: Handler; kind: string; key: string; allowed: string[] } {
  const allowed: string[] = [];
  for (const [m, pattern, handler] of TABLE) {
    const parts = pattern.split("/");
    if (parts.length !== rest.length || !parts.every((p, i) => p.startsWith(":") || p === rest[i])) continue;
    allowed.push(m);
    const at = (name: string) => {
      const i = parts.indexOf(name);
      return i < 0 ? "" : decode(rest[i]!);
    };
    if (m === method || (method === "HEAD" && m === "GET"))
      return { handler, kind: at(":kind"), key: at(":key"), allowed };
  }
  return { kind: "", key: "", allowed };
}

/**
 * The API as a fetch handler; requests outside `/api/` are answered 404 (the page is served elsewhere).
 * `peer` is Bun.serve's server, which knows the client's address (for the throttle).
 */
export function createApi(options: ApiOptions): (req: Request, peer?: Peer) => Promise<Response> {
  const main: routes.Context = {
    vault: options.engine.vault,
    engine: options.engine,
    main: options.engine,
    book: MAIN_BOOK,
    noLog: options.noLog === true,
    limits: { ...API_DEFAULTS, ...options.limits },
    now: options.now ?? (() => new Date()),
    style: options.style,
    shelf: new Shelf(options.engine.vault),
    ...stateOf(options.store, options.engine.vault.root),
  };
  const contextFor = bookContexts(main);
  // Writes carry X-Lorecards: 1 and no preflight is answered, so no page elsewhere can use the API.
  const rules: GuardRules = {
    hosts: options.hosts,
    port: options.port,
    hostHint: "see --allow-host",
    crossSite: "refuse",
    token: options.token,
    throttle: options.token ? createThrottle(options.throttle) : undefined,
    writeHeader: true,
    preflight: "refuse",
  };
  return async (req, peer) => {
    const hostless = refuseHostless(req);
    if (hostless) return hostless;
    const url = new URL(req.url);
    if (!url.pathname.startsWith("/api/")) return errorResponse("not_found", `no such path: ${url.pathname}`);
    const refused = guardRequest(req, rules, clientAddress(req, peer));
    if (refused) return withNoStore(refused);
    try {
      const found = match(req.method, url.pathname.slice(5).replace(/\/$/, "").split("/"));
      if (!found.handler) {
        if (found.allowed.length === 0)
          return errorResponse("not_found", `no such endpoint: ${url.pathname}`);
        return errorResponse("method_not_allowed", `${req.method} is not allowed here`, {
          headers: { allow: found.allowed.join(", ") },
        });
      }
      // An import names its book itself (`?book=` may name one it makes); everything else is about one book.
      const ctx = found.handler === importHandler ? main : contextFor(bookParam(req, url));
      const out = await found.handler(ctx, req, url, found.kind, found.key);
      return withNoStore(out instanceof Response ? out : Response.json(out));
    } catch (err) {
      return withNoStore(loreErrorResponse(err));
    }
  };
}

function stateOf(store: Store | undefined, root: string): Pick<routes.Context, "hits" | "useStore"> {
  const use = async <T>(fn: (s: Store) => Promise<T>): Promise<T> => {
    if (store) return fn(store);
    const opened = await openStore(stateUrl(root));
    try {
      return await fn(opened);
    } finally {
      await opened.close();
    }
  };
  return {
    hits: {
      append: (entries) => use((s) => s.appendHits(entries)),
      recent: (n) => use((s) => s.recentHits(n)),
    },
    useStore: use,
  };
}

/** Card data must never sit in a shared or browser cache. */
function withNoStore(res: Response): Response {
  res.headers.set("cache-control", "no-store");
  return res;
}
