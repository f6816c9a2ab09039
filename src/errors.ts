/**
 * One error type for the whole program. Every failure we raise on purpose carries a stable `code`
 * naming what went wrong; the surfaces translate it (exit code in the CLI, HTTP status + `{error,
 * detail}` in the API, `isError` tool results in MCP). Wrap lower-level failures with `{ cause }`.
 */

export type ErrorCode =
  | "usage" // bad flags or arguments
  | "invalid_input" // a value the user gave is not acceptable
  | "invalid_key" // a card name that would escape the vault or is not a legal file name
  | "unknown_kind"
  | "not_found"
  | "conflict" // the name is taken, or the card changed since it was read
  | "parse_error" // a card or imported file that cannot be read
  | "too_large"
  | "locked" // could not take the vault lock in time
  | "io_error"
  | "address_in_use" // a server's port is taken by another process
  | "unauthorized"
  | "forbidden"
  | "method_not_allowed" // a known HTTP path asked with a method it does not take
  | "rate_limited" // too many wrong tokens from one address
  | "bad_gateway" // the gateway's upstream could not be reached
  | "internal";

export class LoreError extends Error {
  readonly code: ErrorCode;
  /** Extra data a surface may show, e.g. the current version of a card on a conflict. */
  readonly data?: unknown;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; data?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "LoreError";
    this.code = code;
    this.data = options?.data;
  }
}

/**
 * Exit codes for scripts: 0 ok, 1 failure, 2 usage, 3 not found, 4 conflict, 5 bad input, 6 the port
 * a server was asked to listen on is taken (a supervisor can tell "retry later" from "fix the flags").
 */
export const EXIT_CODES: Record<ErrorCode, number> = {
  usage: 2,
  invalid_input: 5,
  invalid_key: 5,
  unknown_kind: 5,
  not_found: 3,
  conflict: 4,
  parse_error: 5,
  too_large: 5,
  locked: 1,
  io_error: 1,
  address_in_use: 6,
  unauthorized: 1,
  forbidden: 1,
  method_not_allowed: 2,
  rate_limited: 1,
  bad_gateway: 1,
  internal: 1,
};

export const HTTP_STATUS: Record<ErrorCode, number> = {
  usage: 400,
  invalid_input: 400,
  invalid_key: 400,
  unknown_kind: 400,
  not_found: 404,
  conflict: 409,
  parse_error: 422,
  too_large: 413,
  locked: 503,
  io_error: 500,
  address_in_use: 503,
  unauthorized: 401,
  forbidden: 403,
  method_not_allowed: 405,
  rate_limited: 429,
  bad_gateway: 502,
  internal: 500,
};

export function isLoreError(err: unknown): err is LoreError {
  return err instanceof LoreError;
}

/**
 * Failures of the disk or the file system that reach a surface unwrapped (a full disk while SQLite
 * writes, a file system gone read-only): the system's errno names, and SQLite's result codes for the
 * same things (https://www.sqlite.org/rescode.html). They are `io_error`, never `internal`: nothing in
 * the program is wrong, and the person can act (free space, remount).
 */
const IO_CODES = new Set([
  "ENOSPC",
  "EDQUOT",
  "EIO",
  "EROFS",
  "EMFILE",
  "ENFILE",
  "SQLITE_FULL",
  "SQLITE_READONLY",
]);

function isIoFailure(err: unknown): boolean {
  const code = String((err as { code?: unknown } | null)?.code ?? "");
  return IO_CODES.has(code) || code.startsWith("SQLITE_IOERR") || code.startsWith("SQLITE_CANTOPEN");
}

/** The code a thrown value is answered with, by every surface: a LoreError's own, io_error for the disk. */
export function errorCodeOf(err: unknown): ErrorCode {
  if (isLoreError(err)) return err.code;
  return isIoFailure(err) ? "io_error" : "internal";
}

/** A message for any thrown value, for stderr lines and envelopes: the one formatter. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Where a problem that stops nothing is said: a function taking one line. */
export type Warn = (line: string) => void;

/** The default `Warn`: the line on stderr. */
export const warnOnStderr: Warn = (line) => {
  process.stderr.write(`${line}\n`);
};

/**
 * `work`, whose failure costs one line through `warn` (`<what> (<why>)`), never the caller: for what a
 * surface keeps for people beside its real job (the hit log, a turn record, an index recall), which
 * must never cost a request its cards or a prompt its answer.
 */
export async function bestEffort(work: () => unknown, warn: Warn, what: string): Promise<void> {
  try {
    await work();
  } catch (err) {
    warn(`${what} (${describeError(err)})`);
  }
}
