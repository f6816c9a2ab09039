/**
 * A card's history over HTTP (docs/HTTP-API.md): its versions newest first, one version's text before
 * and after with a line diff, and a revert. Also who a write is attributed to: the editor page says it
 * is the editor with `X-Lorecards-Writer: ui` (README "History"); anything else is "api". That header
 * attributes, it does not authenticate: every client has passed the same guards by then.
 */

import fs from "node:fs";
import { cardForm, kindByName, validateKey } from "../card/index.ts";
import type { Card } from "../card/types.ts";
import { LoreError } from "../errors.ts";
import { errorResponse } from "../http/index.ts";
import {
  cardPath,
  describeVersion,
  HISTORY_CAP,
  readHistory,
  readVersion,
  revertCard,
  versionDiff,
  type Writer,
} from "../vault/index.ts";
import { mtimeOf, readJsonObject } from "./_body.ts";
import type { Context } from "./_routes.ts";

export const WRITER_HEADER = "x-lorecards-writer";

/** Who is writing: "ui" when the editor page says so, else "api". */
export function writerOf(req: Request): Writer {
  return req.headers.get(WRITER_HEADER)?.trim().toLowerCase() === "ui" ? "ui" : "api";
}

function versionParam(value: unknown, name: string): number {
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) {
    throw new LoreError("invalid_input", `${name} must be a version number (a whole number ≥ 1)`);
  }
  return n;
}

/**
 * `GET /api/cards/{kind}/{key}/history`: `{kind, key, kept, versions}`, or with `?version=N` that one
 * version with `before`, `after` and `diff` (unified hunks). Works for an archived card too: its
 * history is under the name it had.
 */
export async function cardHistory(ctx: Context, url: URL, kindName: string, key: string) {
  const kind = kindByName(ctx.vault.kinds, kindName).name;
  validateKey(key);
  const asked = url.searchParams.get("version");
  if (asked === null) {
    const rows = readHistory(ctx.vault, kind, key);
    // As `lorecards history` says: a name that is no card and has no history is not found.
    if (rows.length === 0 && !fs.existsSync(cardPath(ctx.vault, kind, key)))
      throw new LoreError("not_found", `no ${kind} card named "${key}", and no history under that name`);
    const versions = await Promise.all(rows.map(describeVersion));
    return { kind, key, kept: HISTORY_CAP, versions };
  }
  const id = versionParam(asked, "version");
  const row = readVersion(ctx.vault, id);
  if (row === null || row.kind !== kind || row.key !== key) {
    throw new LoreError("not_found", `${kind}/${key} has no version ${id}`);
  }
  const { hunks } = await versionDiff(row);
  return { kind, key, ...(await describeVersion(row)), before: row.before, after: row.after, diff: hunks };
}

/**
 * `POST /api/cards/{kind}/{key}/revert` with `{"version": N, "mtime": "…"}`: the card as it was after
 * version N. A card changed since `mtime` is a 409 carrying the current card, as for PUT.
 */
export async function revert(ctx: Context, req: Request, kindName: string, key: string) {
  const input = await readJsonObject(req, ctx.limits.json);
  const kind = kindByName(ctx.vault.kinds, kindName);
  const version = versionParam(input.version, "version");
  const mtime = mtimeOf(input);
  try {
    const { card, changed } = await revertCard(ctx.vault, kind.name, key, version, {
      writer: writerOf(req),
      mtime,
    });
    ctx.engine.invalidate();
    return { ...cardForm(card, kind), reverted_to: version, changed };
  } catch (err) {
    if (err instanceof LoreError && err.code === "conflict" && err.data) {
      const current = cardForm(err.data as Card, kind);
      return errorResponse("conflict", err.message, { fields: { current } });
    }
    throw err;
  }
}
