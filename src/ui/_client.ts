// The page's only way to the server. The `?token=` of the link is kept in localStorage, wiped from the
// address bar (so it does not end up in history, bookmarks or a screenshot) and sent as a bearer
// header from then on (spec "Web UI"). Writes carry `X-Lorecards: 1`, which the API demands.

const TOKEN_KEY = "lorecards.token";

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

function headers(write: boolean): Headers {
  const h = new Headers({ accept: "application/json" });
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) h.set("authorization", `Bearer ${token}`);
  if (write) {
    h.set("x-lorecards", "1");
    h.set("content-type", "application/json");
  }
  return h;
}

export function isApiError(err: unknown): err is ApiError {
  return typeof err === "object" && err !== null && "error" in err && "status" in err;
}

/** Call the API; a non-2xx answer is thrown as an ApiError carrying the whole JSON body. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const write = method !== "GET";
  const res = await fetch(path, {
    method,
    headers: headers(write),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.ok) return (await res.json()) as T;
  let data: Record<string, unknown> = {};
  try {
    data = await res.json();
  } catch {}
  throw {
    status: res.status,
    error: String(data.error ?? "error"),
    detail: String(data.detail ?? res.statusText),
    body: data,
  } satisfies ApiError;
}

/** A download that needs the auth header (a plain link could not carry it). */
export async function download(path: string): Promise<{ blob: Blob; filename: string }> {
  const res = await fetch(path, { headers: headers(false) });
  if (!res.ok) {
    const data = await res.json().catch(() => ({}));
    throw {
      status: res.status,
      error: data.error ?? "error",
      detail: data.detail ?? res.statusText,
      body: data,
    };
  }
  const disposition = res.headers.get("content-disposition") ?? "";
  const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? "lorebook.json";
  return { blob: await res.blob(), filename };
}

export function path(kind: string, key: string, suffix = ""): string {
  return `/api/cards/${encodeURIComponent(kind)}/${encodeURIComponent(key)}${suffix}`;
}
