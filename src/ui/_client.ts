// The page's only way to the server. The `?token=` of the link is kept in localStorage, wiped from the
// address bar (so it does not end up in history, bookmarks or a screenshot) and sent as a bearer
// header from then on (README "The web editor and HTTP API"). Writes carry `X-Lorecards: 1`, which
// the API demands.

const TOKEN_KEY = "lorecards.token";

/**
 * The book the page is about (docs/BOOKS.md): undefined for the vault's own cards. Sent as
 * `X-Lorecards-Book` on every call about cards; never on a try or an explanation, which read the
 * books a conversation would (the try box says which), whatever book is on screen.
 */
let book: string | undefined;
const VAULT_WIDE = ["/api/try", "/api/explain", "/api/books"];

export function setBook(name: string | undefined): void {
  book = name === "main" ? undefined : name;
}

export function currentBook(): string {
  return book ?? "main";
}

export interface ApiError {
  status: number;
  error: string;
  detail: string;
  body: Record<string, unknown>;
}

export function adoptTokenFromUrl(): void {
  const url = new URL(location.href);
  const token = url.searchParams.get("token");
  if (token === null) return;
  if (token !== "") localStorage.setItem(TOKEN_KEY, token);
  url.searchParams.delete("token");
  history.replaceState(history.state, "", `${url.pathname}${url.search}${url.hash}`);
}

function headers(write: boolean, type = "application/json", path = ""): Headers {
  const h = new Headers({ accept: "application/json" });
  if (book && !VAULT_WIDE.some((p) => path.startsWith(p))) h.set("x-lorecards-book", book);
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) h.set("authorization", `Bearer ${token}`);
  if (write) {
    h.set("x-lorecards", "1");
    // Attributes the write to the editor in the card's history (README "History").
    h.set("x-lorecards-writer", "ui");
    h.set("content-type", type);
  }
  return h;
}

export function isApiError(err: unknown): err is ApiError {
  return typeof err === "object" && err !== null && "error" in err && "status" in err;
}

/** A non-2xx answer as an ApiError carrying the whole JSON body. */
async function failure(res: Response): Promise<ApiError> {
  let data: Record<string, unknown> = {};
  try {
    data = await res.json();
  } catch {}
  return {
    status: res.status,
    error: String(data.error ?? "error"),
    detail: String(data.detail ?? res.statusText),
    body: data,
  };
}

/**
 * Call the API. A Blob body (a file the user picked) is sent as it is, as bytes, so a card PNG or a
 * CHARX reaches the server untouched; anything else is sent as JSON. Non-2xx answers are thrown.
 */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const raw = body instanceof Blob;
  const res = await fetch(path, {
    method,
    headers: headers(method !== "GET", raw ? "application/octet-stream" : "application/json", path),
    body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
  });
  if (res.ok) return (await res.json()) as T;
  throw await failure(res);
}

/**
 * An upload answered in lines as the server works (`application/x-ndjson`): `onProgress` for each
 * `{"progress"}` line, then the `{"result"}` line's value; an `{"error"}` line, or a non-2xx answer, is
 * thrown as an ApiError.
 */
export async function importStream(
  path: string,
  file: Blob,
  onProgress: (done: number, total: number) => void,
): Promise<unknown> {
  const h = headers(true, "application/octet-stream", path);
  h.set("accept", "application/x-ndjson");
  const res = await fetch(path, { method: "POST", headers: h, body: file });
  if (!res.ok || res.body === null) throw await failure(res);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += value;
    const lines = buffer.split("\n");
    buffer = done ? "" : lines.pop()!;
    for (const line of lines) {
      if (line.trim() === "") continue;
      const msg = JSON.parse(line) as {
        progress?: { done: number; total: number };
        result?: unknown;
        error?: string;
        detail?: string;
      };
      if (msg.progress) onProgress(msg.progress.done, msg.progress.total);
      else if (msg.error)
        throw {
          status: 200,
          error: msg.error,
          detail: msg.detail ?? msg.error,
          body: msg,
        } satisfies ApiError;
      else if ("result" in msg) return msg.result;
    }
    if (done)
      throw {
        status: 200,
        error: "internal",
        detail: "the import ended without an answer",
        body: {},
      } satisfies ApiError;
  }
}

/** A download that needs the auth header (a plain link could not carry it). */
export async function download(path: string): Promise<{ blob: Blob; filename: string }> {
  const res = await fetch(path, { headers: headers(false, "application/json", path) });
  if (!res.ok) throw await failure(res);
  const disposition = res.headers.get("content-disposition") ?? "";
  const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? "lorebook.json";
  return { blob: await res.blob(), filename };
}

export function path(kind: string, key: string, suffix = ""): string {
  return `/api/cards/${encodeURIComponent(kind)}/${encodeURIComponent(key)}${suffix}`;
}
