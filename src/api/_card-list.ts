/**
 * The editor's list of cards (`GET /api/cards`, docs/HTTP-API.md): every live card as the list shows,
 * sorts and filters it, made once per version of the vault and gzipped once (ten thousand cards are a
 * few MB of JSON); or, with `?archived=1`, the archive, each file read for its title.
 */
import path from "node:path";
import { brokenSummary, cardSummary, kindByName, parseCard } from "../card/index.ts";
import { rulesOf } from "../card/rules.ts";
import type { CardMeta } from "../card/types.ts";
import { listArchived, readNoFollow } from "../vault/index.ts";
import { isoFromNs } from "../wire.ts";
import { type Context, truthy } from "./_routes.ts";

export function listCards(ctx: Context, req: Request, url: URL) {
  const kindParam = url.searchParams.get("kind");
  const kind = kindParam ? kindByName(ctx.vault.kinds, kindParam).name : undefined;
  if (truthy(url.searchParams.get("archived"))) return { cards: archivedItems(ctx, kind), broken: [] };
  // The list's first call starts reading every card's text, for the search that usually follows.
  ctx.shelf.warm();
  // Made once per version of the vault: a page opened again, or each save's reload, costs no decoding;
  // and gzipped once too (ten thousand cards are a few MB of JSON, a few hundred KB gzipped: a phone's).
  const { json, gzipped } = ctx.shelf.memo(`list:${kind ?? ""}`, ({ cards, broken, warnings }) => {
    const ofKind = (c: { kind: string }) => kind === undefined || c.kind === kind;
    const warned = new Map(warnings.map((w) => [w.path, w.warnings.length]));
    // Files that could not be parsed are listed too, so the editor can say which ones and why.
    const text = JSON.stringify({
      cards: cards.filter(ofKind).map((c) => listItem(c, warned.get(c.path) ?? 0)),
      broken: broken.filter(ofKind).map((b) => brokenSummary(b, { names: true })),
    } satisfies CardList);
    return { json: text, gzipped: Bun.gzipSync(text) };
  });
  const headers = { "content-type": "application/json;charset=utf-8", vary: "accept-encoding" };
  if (!/\bgzip\b/.test(req.headers.get("accept-encoding") ?? "")) return new Response(json, { headers });
  return new Response(gzipped, { headers: { ...headers, "content-encoding": "gzip" } });
}

/** The answer of `GET /api/cards` for live cards. */
export interface CardList {
  cards: ListItem[];
  broken: ReturnType<typeof brokenSummary>[];
}

const PREVIEW_CHARS = 120;

/**
 * A card as the editor's list shows, sorts and filters it: the summary with its preview, and its size
 * (characters of public text), when it comes in, its order and priority, and how many of its values
 * fell back to a default.
 */
function listItem(c: CardMeta, warnings: number) {
  const rules = rulesOf(c);
  const { path: _path, ...summary } = cardSummary(c, { preview: true });
  return {
    ...summary,
    // A row shows the start of the first line: the rest of it would only weigh on the answer.
    preview: summary.preview?.slice(0, PREVIEW_CHARS),
    chars: c.publicChars,
    policy: rules.policy,
    order: rules.order,
    priority: c.priority,
    warnings,
  };
}

export type ListItem = ReturnType<typeof listItem>;
export type ArchivedItem = ReturnType<typeof archivedItems>[number];

function archivedItems(ctx: Context, kind: string | undefined) {
  return listArchived(ctx.vault)
    .filter((a) => kind === undefined || a.kind === kind)
    .map((a) => {
      let title = a.originalKey;
      let preview = "";
      try {
        const text = readNoFollow(ctx.vault, path.join(ctx.vault.root, a.path));
        const card = parseCard(text, {
          kind: a.kind,
          key: a.originalKey,
          path: a.path,
          kinds: ctx.vault.kinds,
        });
        title = card.title;
        preview = card.firstLine;
      } catch {
        // An unreadable archived file is still listed, so it can be restored and fixed.
      }
      return {
        key: a.key,
        kind: a.kind,
        path: a.path,
        title,
        preview,
        mtime: isoFromNs(a.mtime),
        archived: true,
        original_key: a.originalKey,
      };
    });
}
