/**
 * The one way to open a Store: from a URL-like setting naming the backend and where its state lives.
 *
 * - `sqlite:<path>`: the embedded default, a bun:sqlite file (a relative path is resolved against the
 *   working directory); the marker secret and `hits.jsonl` sit beside it. Default
 *   `sqlite:<vault>/.lorecards/state.db` (`stateUrl`).
 * - `memory:`: this process's heap, empty at open and gone at exit.
 * - Either takes `?conversations=N`, the conversation cap (default 500).
 * - `postgres://user:password@host:port/database` (or `postgresql://`): a database several processes
 *   share (postgres.ts), with `?space=NAME` for each vault sharing one database, `?timeout=SECONDS`
 *   for how long an operation may wait (default 2) before the gateway fails open, and
 *   `?conversations=N` for the conversation cap (default 10,000: a server serves more people).
 *
 * Each backend is a driver under one domain layer (`_domain.ts`); another engine would be one more
 * scheme here and one more driver, passing the same contract suite.
 */

import path from "node:path";
import { LoreError, warnOnStderr } from "../errors.ts";
import { openMemoryStore } from "./memory.ts";
import { openSqliteStore, statePath } from "./sqlite.ts";
import { LIMITS, type Limits, type Store } from "./types.ts";

export interface StoreOptions {
  /** The caps of the Store contract; LIMITS by default (tests make them small). */
  limits?: Partial<Limits>;
  /** Where one-line notices go (a state file rebuilt or followed); defaults to stderr. */
  warn?: (line: string) => void;
  /** A long-running process: a state file is watched, not stat'ed per operation (sqlite.ts). */
  watch?: boolean;
}

/** The default store of a vault. */
export function stateUrl(vaultRoot: string): string {
  return `sqlite:${statePath(vaultRoot)}`;
}

export async function openStore(url: string, options: StoreOptions = {}): Promise<Store> {
  const warn = options.warn ?? warnOnStderr;
  const colon = url.indexOf(":");
  const scheme = colon === -1 ? "" : url.slice(0, colon);
  if (scheme === "sqlite" || scheme === "memory") {
    const [rest, query] = splitQuery(url.slice(colon + 1));
    const limits: Limits = { ...LIMITS, ...capOf(url, query), ...options.limits };
    if (scheme === "sqlite" && rest !== "")
      return openSqliteStore(path.resolve(rest), { limits, warn, watch: options.watch });
    if (scheme === "memory" && rest === "") return openMemoryStore({ limits });
  }
  if ((scheme === "postgres" || scheme === "postgresql") && url.startsWith("//", colon + 1)) {
    // Loaded only here: the default store (and the hook's cold start) never pays for it.
    const { openPostgresStore } = await import("./postgres.ts");
    return openPostgresStore(url, { limits: options.limits });
  }
  throw new LoreError(
    "invalid_input",
    `not a state store: ${url} (use sqlite:<path>, memory: or postgres://user@host:port/database)`,
  );
}

/** `rest?query`: a file path never holds a `?` here (the query is ours). */
function splitQuery(rest: string): [string, URLSearchParams] {
  const q = rest.indexOf("?");
  return q === -1
    ? [rest, new URLSearchParams()]
    : [rest.slice(0, q), new URLSearchParams(rest.slice(q + 1))];
}

/** `?conversations=N`, the conversation cap; any other parameter is refused. */
function capOf(url: string, query: URLSearchParams): Partial<Limits> {
  for (const name of query.keys())
    if (name !== "conversations")
      throw new LoreError("invalid_input", `${url}: unknown parameter ${name} (takes conversations=N)`);
  const cap = query.get("conversations");
  if (cap === null) return {};
  const n = Number(cap);
  if (!Number.isInteger(n) || n <= 0)
    throw new LoreError("invalid_input", `${url}: conversations=${cap}: use a whole number above 0`);
  return { conversations: n };
}
