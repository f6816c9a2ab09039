/**
 * Every error an HTTP surface returns has the same JSON shape, `{"error": code, "detail": text}`, and
 * the status its code has in the one table (errors.ts `HTTP_STATUS`): a surface names what failed,
 * never a status of its own.
 */

import { describeError, type ErrorCode, errorCodeOf, HTTP_STATUS } from "../errors.ts";

export function errorEnvelope(error: ErrorCode, detail: string): { error: ErrorCode; detail: string } {
  return { error, detail };
}

export interface ErrorExtras {
  headers?: HeadersInit;
  /** Fields beside `error` and `detail` (a conflict's `current` card, the cards a refused step names). */
  fields?: Record<string, unknown>;
}

export function errorResponse(code: ErrorCode, detail: string, extras: ErrorExtras = {}): Response {
  const h = new Headers(extras.headers);
  h.set("content-type", "application/json; charset=utf-8");
  const body = { ...errorEnvelope(code, detail), ...extras.fields };
  return new Response(JSON.stringify(body), { status: HTTP_STATUS[code], headers: h });
}

/**
 * A thrown value as a response: a LoreError keeps its code (and so its status), a failure of the disk
 * is `io_error`, anything else `internal` (errors.ts `errorCodeOf`).
 */
export function loreErrorResponse(err: unknown): Response {
  return errorResponse(errorCodeOf(err), describeError(err));
}
