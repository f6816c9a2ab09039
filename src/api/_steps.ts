/**
 * Many cards at once, and what happened to the vault (docs/HTTP-API.md): `POST /api/bulk` changes the
 * cards it names in one step of the history (enable, disable, when they come in, kind, archive, tags),
 * `GET /api/history` lists the vault's steps newest first, `GET /api/history/{step}` shows one with its
 * versions, and `POST /api/history/{step}/undo` takes a step back, in a step of its own. What each bulk
 * action means for a card's frontmatter is said here once; the writing is vault/'s.
 */

import { kindByName } from "../card/index.ts";
import type { Card, Policy } from "../card/types.ts";
import { LoreError } from "../errors.ts";
import { errorResponse } from "../http/index.ts";
import {
  type BulkChange,
  type BulkTarget,
  bulkChange,
  describeVersion,
  type KeptStep,
  readStep,
  readSteps,
  undoStep,
} from "../vault/index.ts";
import { isoTime } from "../wire.ts";
import { mtimeOf, readJsonObject } from "./_body.ts";
import { writerOf } from "./_history.ts";
import type { Context } from "./_routes.ts";

/** The bulk actions, and what each needs as its `value`. */
export const BULK_ACTIONS = ["enable", "disable", "context", "kind", "archive", "tag", "untag"] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

const POLICIES: readonly Policy[] = ["automatic", "always", "manual", "never"];
/** Cards one request may change: a whole real book, with room to spare. */
const MAX_CARDS = 20_000;

function bad(message: string): LoreError {
  return new LoreError("invalid_input", message);
}

function targetsOf(value: unknown): BulkTarget[] {
  if (!Array.isArray(value) || value.length === 0)
    throw bad("cards must be a non-empty list of {kind, key, mtime?}");
  if (value.length > MAX_CARDS) throw bad(`cards names ${value.length} cards; the limit is ${MAX_CARDS}`);
  return value.map((v, i) => {
    const t = v as Record<string, unknown> | null;
    if (t === null || typeof t !== "object" || typeof t.kind !== "string" || typeof t.key !== "string")
      throw bad(`cards[${i}] must be {kind, key, mtime?}`);
    return { kind: t.kind, key: t.key, mtime: mtimeOf(t) };
  });
}

function tagOf(value: unknown): string {
  const tag = typeof value === "string" ? value.trim() : "";
  if (tag === "" || /[\r\n,]/.test(tag)) throw bad("value must be one tag (a word or words, no comma)");
  return tag;
}

/** The change a bulk action makes, and the note its step is listed with. */
export function changeOf(
  ctx: Context,
  action: unknown,
  value: unknown,
): { change: BulkChange; note: string } {
  switch (action as BulkAction) {
    case "enable":
      // `enabled` is true unless written false: enabling takes the key out (one Undo gives back the file
      // as it was, `enabled: true` line and all).
      return { change: { fields: () => ({ enabled: undefined }) }, note: "enabled" };
    case "disable":
      return { change: { fields: () => ({ enabled: false }) }, note: "disabled" };
    case "context": {
      if (!POLICIES.includes(value as Policy)) throw bad(`value must be one of ${POLICIES.join(", ")}`);
      // An explicit `context` wins over `inject: false`; the old switch goes, so the file says it once.
      const fields = () => ({ context: value === "automatic" ? undefined : value, inject: undefined });
      return { change: { fields }, note: `context: ${value}` };
    }
    case "kind": {
      if (typeof value !== "string") throw bad("value must be the name of a kind");
      const kind = kindByName(ctx.vault.kinds, value);
      return { change: { kind: kind.name }, note: `kind: ${kind.name}` };
    }
    case "archive":
      return { change: { archive: true }, note: "archived" };
    case "tag":
    case "untag": {
      const tag = tagOf(value);
      const adding = action === "tag";
      const fields = (card: Card) => {
        const others = (card.tags ?? []).filter((t) => t.toLowerCase() !== tag.toLowerCase());
        const tags = adding ? [...others, tag] : others;
        return { tags: tags.length > 0 ? tags : undefined };
      };
      return { change: { fields }, note: `${adding ? "tagged" : "untagged"} "${tag}"` };
    }
    default:
      throw bad(`action must be one of ${BULK_ACTIONS.join(", ")}`);
  }
}

/** A refused step as the page shows it: which cards, and why (409, nothing written). */
function refusal(err: unknown): Response | null {
  if (!(err instanceof LoreError) || err.code !== "conflict") return null;
  const cards = (err.data as { cards?: string[] } | undefined)?.cards ?? [];
  return errorResponse("conflict", err.message, { fields: { cards } });
}

/** `POST /api/bulk` `{"action", "value"?, "cards": [{kind, key, mtime?}]}` → `{step, changed, unchanged}`. */
export async function bulk(ctx: Context, req: Request) {
  const input = await readJsonObject(req, ctx.limits.json);
  const targets = targetsOf(input.cards);
  const { change, note } = changeOf(ctx, input.action, input.value);
  try {
    const result = await bulkChange(ctx.vault, targets, change, { writer: writerOf(req), note });
    ctx.engine.invalidate();
    return { action: input.action, note, ...result };
  } catch (err) {
    const answer = refusal(err);
    if (answer) return answer;
    throw err;
  }
}

function stepJson(s: KeptStep, names: string[]) {
  return {
    step: s.id,
    at: isoTime(s.at),
    writer: s.writer,
    action: s.action,
    cards: s.cards,
    kept: s.kept,
    undoes: s.undoes,
    note: s.note,
    names,
  };
}

/** Names shown with a step in the list: a few, the rest counted by `cards`. */
const NAMES_SHOWN = 5;

function count(raw: string | null, name: string, fallback: number, max: number): number {
  if (raw === null || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw bad(`${name} must be a whole number ≥ 1`);
  return Math.min(n, max);
}

/** `GET /api/history?limit=&before=`: the vault's steps, newest first, each with the first cards it named. */
export function steps(ctx: Context, url: URL) {
  const limit = count(url.searchParams.get("limit"), "limit", 50, 500);
  const before = count(
    url.searchParams.get("before"),
    "before",
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER,
  );
  return {
    steps: readSteps(ctx.vault, limit, { before, names: NAMES_SHOWN }).map((s) => stepJson(s, s.names)),
  };
}

function stepNumber(raw: string): number {
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw bad("a step is a version number (a whole number ≥ 1)");
  return n;
}

/** `GET /api/history/{step}`: the step and every version it holds, each as the card's history lists it. */
export async function step(ctx: Context, raw: string) {
  const id = stepNumber(raw);
  const found = readStep(ctx.vault, id);
  if (found === null) throw new LoreError("not_found", `there is no step #${id} in the history`);
  const versions = await Promise.all(
    found.versions.map(async (v) => ({ kind: v.kind, key: v.key, ...(await describeVersion(v)) })),
  );
  return {
    ...stepJson(
      found.step,
      versions.map((v) => `${v.kind}/${v.key}`),
    ),
    versions,
  };
}

/** `POST /api/history/{step}/undo` → `{step, undid, cards}`; 409 naming the cards written since. */
export async function undo(ctx: Context, req: Request, raw: string) {
  const id = stepNumber(raw);
  try {
    const done = await undoStep(ctx.vault, id, { writer: writerOf(req) });
    ctx.engine.invalidate();
    return done;
  } catch (err) {
    const answer = refusal(err);
    if (answer) return answer;
    throw err;
  }
}
