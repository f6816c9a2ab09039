/**
 * Style memory's endpoints (docs/HTTP-API.md, README "Style memory"), behind the same guards as every
 * route: what was learned (`GET /api/style`, with the one-time initialisation's state), the brief
 * (`GET /api/style/brief`), its health score (`GET /api/style/score`), and the controls the CLI and the
 * MCP tools have (pin, unpin, forget, pause, resume). Each request opens the vault's style
 * book and closes it again; an unknown habit id is the book's `not_found` (404).
 */
import { LoreError } from "../errors.ts";
import type { StyleBook } from "../style/index.ts";
import { toWire } from "../wire.ts";
import type { Context } from "./_routes.ts";

const STATES = ["candidate", "active", "archived"] as const;
/** The context a brief is filtered by is the current message: more than this is cut, not refused. */
const MAX_CONTEXT_CHARS = 4000;

async function withBook<T>(ctx: Context, fn: (book: StyleBook) => Promise<T>): Promise<T> {
  const { openStyle } = await import("../style/index.ts");
  const book = await openStyle(ctx.vault.root, ctx.style);
  try {
    return await fn(book);
  } finally {
    await book.close();
  }
}

/** `GET /api/style?state=`: whether learning is on, and the habits (all, or one state). */
export function habits(ctx: Context, url: URL) {
  const raw = url.searchParams.get("state");
  if (raw !== null && raw !== "" && !(STATES as readonly string[]).includes(raw))
    throw new LoreError("invalid_input", `state must be one of ${STATES.join(", ")}, got "${raw}"`);
  const state = raw ? (raw as (typeof STATES)[number]) : undefined;
  return withBook(ctx, async (book) =>
    toWire({
      learning: await book.learning(),
      habits: await book.list(state === undefined ? undefined : { state }),
      initialization: await book.initialization(),
    }),
  );
}

function sinceOf(url: URL): number | undefined {
  const raw = url.searchParams.get("since");
  const since = raw === null || raw === "" ? undefined : Number(raw);
  if (since !== undefined && !(Number.isSafeInteger(since) && since >= 0))
    throw new LoreError("invalid_input", `since must be a revision (a whole number ≥ 0), got "${raw}"`);
  return since;
}

/** `GET /api/style/brief?context=&since=`: the brief in full, the delta since a revision, or an ack. */
export function brief(ctx: Context, url: URL) {
  const since = sinceOf(url);
  const context = url.searchParams.get("context")?.slice(0, MAX_CONTEXT_CHARS) || undefined;
  return withBook(ctx, async (book) => toWire(await book.brief({ context, since })));
}

/** `GET /api/style/score?since=`: readiness, drift, over-imitation, and whether to fetch the brief again. */
export function score(ctx: Context, url: URL) {
  const since = sinceOf(url);
  return withBook(ctx, async (book) => toWire(await book.score({ since })));
}

/** `POST /api/style/habits/{id}/pin` and `/unpin`: the habit as it is now. */
export function pin(ctx: Context, id: string, pinned: boolean) {
  return withBook(ctx, async (book) => toWire({ habit: pinned ? await book.pin(id) : await book.unpin(id) }));
}

/** `DELETE /api/style/habits/{id}`: forgotten at once, nothing of it kept. */
export function forget(ctx: Context, id: string) {
  return withBook(ctx, async (book) => {
    await book.forget(id);
    return { forgotten: id };
  });
}

/** `POST /api/style/pause` and `/resume`: whether learning is on now. */
export function learning(ctx: Context, on: boolean) {
  return withBook(ctx, async (book) => {
    if (on) await book.resume();
    else await book.pause();
    return { learning: await book.learning() };
  });
}
