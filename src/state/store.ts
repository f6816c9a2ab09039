/**
 * The one way to open a Store: from a URL-like setting naming the backend and where its state lives.
 *
 * - `sqlite:<path>`: the embedded default, a bun:sqlite file (a relative path is resolved against the
 *   working directory); the marker secret and `hits.jsonl` sit beside it. Default
 *   `sqlite:<vault>/.lorecards/state.db` (`stateUrl`).
 * - `memory:`: this process's heap, empty at open and gone at exit.
 * - `postgres://user:password@host:port/database` (or `postgresql://`): a database several processes
 *   share (postgres.ts), with `?space=NAME` for each vault sharing one database and `?timeout=SECONDS`
 *   for how long an operation may wait (default 2) before the gateway fails open.
 *
 * Each backend is a driver under one domain layer (`_domain.ts`); another engine would be one more
 * scheme here and one more driver, passing the same contract suite.
 */

import path from "node:path";
import { LoreError } from "../errors.ts";
import { openMemoryStore } from "./memory.ts";
import { openSqliteStore, statePath } from "./sqlite.ts";
import { LIMITS, type Limits, type Store } from "./types.ts";

export interface StoreOptions {
  /** The caps of the Store contract; LIMITS by default (tests make them small). */
  limits?: Partial<Limits>;
  /** Where one-line notices go (a state file rebuilt or followed); defaults to stderr. */
  warn?: (line: string) => void;
}

/** The default store of a vault. */
export function stateUrl(vaultRoot: string): string {
  return `sqlite:${statePath(vaultRoot)}`;
}

export async function openStore(url: string, options: StoreOptions = {}): Promise<Store> {
  const limits: Limits = { ...LIMITS, ...options.limits };
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const colon = url.indexOf(":");
  const scheme = colon === -1 ? "" : url.slice(0, colon);
  const rest = url.slice(colon + 1);
  if (scheme === "sqlite" && rest !== "") return openSqliteStore(path.resolve(rest), { limits, warn });
  if (scheme === "memory" && rest === "") return openMemoryStore({ limits });
  if ((scheme === "postgres" || scheme === "postgresql") && rest.startsWith("//")) {
    // Loaded only here: the default store (and the hook's cold start) never pays for it.
    const { openPostgresStore } = await import("./postgres.ts");
    return openPostgresStore(url, { limits });
  }
  throw new LoreError(
    "invalid_input",
    `not a state store: ${url} (use sqlite:<path>, memory: or postgres://user@host:port/database)`,
  );
}
