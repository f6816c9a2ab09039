/**
 * One pool of connections to Postgres through Bun's built-in client (`Bun.SQL`), made on first use,
 * that never makes its caller wait longer than `timeout`: the gateway fails open when its state is
 * away, so a database that is down, paused or cut off must cost a request a bounded wait, never a hang.
 *
 * - Every operation has a deadline (`?timeout=` seconds in the URL, default 2). When it passes, the
 *   operation gives up (a transaction that outlives it rolls back instead of committing). If the server
 *   answered nothing else meanwhile it counts as unreachable: Bun's client does not give up on a query
 *   a paused server never answers, so the whole pool is closed at once (which rejects what it had in
 *   flight; the server rolls back an open transaction when it sees the socket close) and a new one is
 *   made on the next use; until the server answers again, operations fail at once while one of them at
 *   a time probes it. A server that did answer others is only busy: nothing else changes.
 * - A connection lost under an operation (the server restarted, the connection was cut, a pooled
 *   connection that died while idle) is retried on another, within the same deadline, when nothing
 *   can have been committed: always for a read, for a transaction only when it failed before its
 *   COMMIT was sent. A timeout is never retried.
 * - The server bounds itself too: a statement or a lock wait longer than the deadline is cancelled, and
 *   a session idle in a transaction (a client that vanished holding a lock) is ended.
 *
 * The URL is Bun's (`postgres://user:password@host:port/database`, `postgresql://` too) plus three
 * parameters of ours, taken off before Bun sees it: `space`, `timeout` and `conversations` (the cap).
 */

import { SQL } from "bun";
import { describeError, LoreError } from "../errors.ts";
import { ensureSchema } from "./_pg-schema.ts";

export interface PgSettings {
  /** The URL Bun is given: without our parameters. */
  url: string;
  /** The same without its password, for messages. */
  where: string;
  space: string;
  timeoutMs: number;
  /** The conversation cap the URL sets (`?conversations=`), if it does. */
  conversations?: number;
}

const DEFAULT_TIMEOUT_S = 2;
/** Connections per process: the transactions of the conversations in flight, and their reads. */
const POOL_SIZE = 10;

export function parsePgUrl(url: string): PgSettings {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new LoreError("invalid_input", `not a postgres URL: ${redact(url)}`);
  }
  const space = parsed.searchParams.get("space") ?? "default";
  const timeout = Number(parsed.searchParams.get("timeout") ?? DEFAULT_TIMEOUT_S);
  if (!/^[\w.-]{1,100}$/.test(space))
    throw new LoreError("invalid_input", `space=${space}: use 1 to 100 letters, digits, '.', '_' or '-'`);
  if (!(timeout > 0 && timeout <= 600))
    throw new LoreError(
      "invalid_input",
      `timeout=${parsed.searchParams.get("timeout")}: use seconds, above 0, at most 600`,
    );
  const cap = parsed.searchParams.get("conversations");
  const conversations = cap === null ? undefined : Number(cap);
  if (conversations !== undefined && !(Number.isInteger(conversations) && conversations > 0))
    throw new LoreError("invalid_input", `conversations=${cap}: use a whole number above 0`);
  for (const ours of ["space", "timeout", "conversations"]) parsed.searchParams.delete(ours);
  const where = `${redact(parsed.href)}${space === "default" ? "" : ` (space ${space})`}`;
  return { url: parsed.href, where, space, timeoutMs: Math.round(timeout * 1000), conversations };
}

/** A URL without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, "//$1@");
}

/** Errors that say the connection is gone: Bun's own, and SQLSTATE 08 (connection), 57P (shutdown). */
const CUT_CODES = /^ERR_POSTGRES_(CONNECTION|IDLE|LIFETIME)/;
const CUT_STATES = /^(08|57P)/;
/** Errors that say the server took too long: a cancelled query, a statement or a lock wait timed out. */
const SLOW_CODES = /^ERR_POSTGRES_QUERY_CANCELLED/;
const SLOW_STATES = /^(57014|55P03)$/;

/** What an operation is told of its own deadline: a transaction that outlived it must not commit. */
export interface Call {
  abandoned: boolean;
}

class SlowError extends Error {}

export class PgClient {
  private pool?: SQL;
  private schemaReady = false;
  /** Set while the database counts as unreachable (a deadline passed); cleared by a success. */
  private down?: LoreError;
  private probing = false;
  /** Errors that say the database could not be reached or did not answer in time (`isLost`). */
  private readonly lostErrors = new WeakSet<object>();
  /** Of those, the connections lost: an operation that committed nothing may run again. */
  private readonly cutErrors = new WeakSet<object>();
  /** When the server last answered an operation (performance.now()). */
  private lastAnswer = Number.NEGATIVE_INFINITY;

  constructor(readonly settings: PgSettings) {}

  /** Whether `err` (as thrown by `run`) said the database could not be reached. */
  isLost(err: unknown): boolean {
    return typeof err === "object" && err !== null && this.lostErrors.has(err);
  }

  /**
   * Runs `op` on the pool within the deadline. `retryable()` says whether an operation whose connection
   * was lost may run again (nothing was committed); reads pass `() => true`.
   */
  async run<T>(op: (sql: SQL, call: Call) => Promise<T>, retryable: () => boolean): Promise<T> {
    if (this.down && this.probing) throw this.unreachable(this.down);
    const probe = this.down !== undefined;
    if (probe) this.probing = true;
    const until = performance.now() + this.settings.timeoutMs;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const result = await this.withDeadline(op, until - performance.now());
          this.down = undefined;
          return result;
        } catch (err) {
          // Cut connections are found one at a time (the pool hands out each until it is used): as
          // many tries as the pool has connections, each after the events already in are handled.
          const again = this.cutErrors.has(err as object) && attempt < POOL_SIZE && retryable();
          if (!again || this.down || performance.now() >= until) throw err;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    } finally {
      if (probe) this.probing = false;
    }
  }

  /** The error of an operation refused while another probes a database that did not answer. */
  private unreachable(down: LoreError): LoreError {
    const err = new LoreError("io_error", `${down.message}; not waiting again until it answers`, {
      cause: down,
    });
    this.lostErrors.add(err);
    return err;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.close({ timeout: 1 }).catch(() => undefined);
  }

  private open(): SQL {
    const s = Math.ceil(this.settings.timeoutMs / 1000);
    this.pool ??= new SQL(this.settings.url, {
      max: POOL_SIZE,
      connectionTimeout: s,
      idleTimeout: 60,
      connection: {
        application_name: "lorecards",
        statement_timeout: this.settings.timeoutMs,
        lock_timeout: this.settings.timeoutMs,
        idle_in_transaction_session_timeout: this.settings.timeoutMs * 2,
        // The statements are few and always the same: plan each once per connection, not per call.
        plan_cache_mode: "force_generic_plan",
      },
    });
    return this.pool;
  }

  private async withDeadline<T>(op: (sql: SQL, call: Call) => Promise<T>, ms: number): Promise<T> {
    const pool = this.open();
    const call: Call = { abandoned: false };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          call.abandoned = true;
          const seconds = this.settings.timeoutMs / 1000;
          // A server that answered others meanwhile is busy, not gone: this operation alone gives up.
          if (performance.now() - this.lastAnswer < this.settings.timeoutMs) {
            reject(new SlowError(`no answer within ${seconds} s (the server is busy)`));
            return;
          }
          reject(new Error(`no answer within ${seconds} s`));
          // What the pool still has in flight will never be answered: let it all go.
          if (this.pool === pool) this.pool = undefined;
          void pool.close({ timeout: 0 }).catch(() => undefined);
        },
        Math.max(0, ms),
      );
    });
    try {
      const result = await Promise.race([this.ready(pool).then(() => op(pool, call)), deadline]);
      this.lastAnswer = performance.now();
      return result;
    } catch (err) {
      throw this.wrap(err);
    } finally {
      clearTimeout(timer);
    }
  }

  private async ready(pool: SQL): Promise<void> {
    if (this.schemaReady) return;
    await ensureSchema(pool, this.settings.where);
    this.schemaReady = true;
  }

  private wrap(err: unknown): unknown {
    if (err instanceof LoreError) return err;
    const e = err as { code?: string; errno?: string; severity?: string };
    if (e.errno !== undefined) this.lastAnswer = performance.now(); // the server answered, with an error
    const timedOut =
      !(err instanceof SlowError) && err instanceof Error && err.message.startsWith("no answer within");
    const cut =
      CUT_CODES.test(e.code ?? "") ||
      CUT_STATES.test(e.errno ?? "") ||
      e.severity === "FATAL" ||
      e.severity === "PANIC";
    const slow = err instanceof SlowError || SLOW_CODES.test(e.code ?? "") || SLOW_STATES.test(e.errno ?? "");
    const wrapped = new LoreError("io_error", `state ${this.settings.where}: ${describeError(err)}`, {
      cause: err,
    });
    if (cut || slow || timedOut) this.lostErrors.add(wrapped);
    if (cut) this.cutErrors.add(wrapped);
    if (timedOut) this.down = wrapped;
    return wrapped;
  }
}
