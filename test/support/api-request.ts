/**
 * The HTTP API called in-process as the editor's page calls it: a `new Request(…)` for the Host the
 * handler was made for (`createApi({ hosts: ["127.0.0.1"], port: 8766 })`), a write carrying the guard
 * header `X-Lorecards: 1` and a JSON body.
 */

export const API_HOST = "127.0.0.1:8766";

/**
 * `body` is sent as it is when a string or bytes, as JSON otherwise; `headers` come last, so a test
 * can override or add to the guard headers.
 */
export function apiRequest(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Request {
  const write = method !== "GET" && method !== "HEAD";
  return new Request(`http://${API_HOST}${url}`, {
    method,
    headers: {
      host: API_HOST,
      ...(write ? { "x-lorecards": "1", "content-type": "application/json" } : {}),
      ...headers,
    },
    body:
      body === undefined
        ? undefined
        : typeof body === "string"
          ? body
          : body instanceof Uint8Array
            ? (body as Uint8Array<ArrayBuffer>)
            : JSON.stringify(body),
  });
}
