/** Every error an HTTP surface returns has the same JSON shape: `{"error": code, "detail": text}`. */

import { describeError, HTTP_STATUS, isLoreError } from "../errors.ts";

export function errorEnvelope(error: string, detail: string): { error: string; detail: string } {
  return { error, detail };
}

export function errorResponse(
  status: number,
  error: string,
  detail: string,
  headers?: HeadersInit,
): Response {
  const h = new Headers(headers);
  h.set("content-type", "application/json; charset=utf-8");
  return new Response(JSON.stringify(errorEnvelope(error, detail)), { status, headers: h });
}

/** A thrown value as a response: a LoreError keeps its code and status, anything else is `internal`. */
export function loreErrorResponse(err: unknown): Response {
  if (isLoreError(err)) return errorResponse(HTTP_STATUS[err.code], err.code, err.message);
  return errorResponse(500, "internal", describeError(err));
}
