/**
 * The brief's revision: a number that moves only when the brief's content (brief.ts `briefItems`)
 * does. The store keeps the current number and the hash of its content, and the content of the last
 * 32 revisions for deltas. A caller that names the current revision gets an ack, one that names a
 * kept older revision a delta, anyone else the full brief. Forgetting a habit drops the kept contents
 * (they may hold its line), never the number or hash: the next answer to an older revision is full.
 */
import type { Queries } from "./_db.ts";
import { briefHash, diffItems, renderAck, renderDelta, renderFull } from "./brief.ts";
import type { BriefAnswer, BriefItem, ContextTag } from "./types.ts";

export const REVISIONS_KEPT = 32;

export interface Current {
  revision: number;
  hash: string;
}

/** The stored revision, or none (revision 0) when nothing was ever briefed. */
export function storedRevision(q: Queries): Current {
  const revision = Number(q.meta.get("revision")?.value ?? 0);
  return { revision, hash: q.meta.get("revision_hash")?.value ?? "" };
}

/**
 * The revision of `items`: the stored one when its hash matches, else the next number, stored with
 * its content. Empty content never gets a revision of its own (a fresh store stays at 0).
 */
export function settleRevision(q: Queries, items: BriefItem[], now: number): number {
  const hash = briefHash(items);
  const current = storedRevision(q);
  if (current.hash === hash || (items.length === 0 && current.revision === 0)) return current.revision;
  const revision = current.revision + 1;
  q.putMeta.run("revision", String(revision));
  q.putMeta.run("revision_hash", hash);
  q.putRevision.run(revision, hash, JSON.stringify(items), now);
  q.trimRevisions.run(revision - REVISIONS_KEPT);
  return revision;
}

/** True when `items` would keep the stored revision: no write needed. */
export function isSettled(current: Current, items: BriefItem[]): boolean {
  return current.hash === briefHash(items) || (items.length === 0 && current.revision === 0);
}

/** The answer for a caller holding `since` (or nothing), in `context`. */
export function answer(
  items: BriefItem[],
  revision: number,
  context: ContextTag[],
  since: number | undefined,
  kept: (n: number) => BriefItem[] | undefined,
): BriefAnswer {
  if (since !== undefined && since === revision && revision > 0)
    return { kind: "ack", revision, context, text: renderAck(items, revision, context) };
  const before = since !== undefined && since > 0 && since < revision ? kept(since) : undefined;
  if (before !== undefined) {
    const delta = diffItems(before, items);
    const text = renderDelta(delta, items, revision, since!, context);
    return { kind: "delta", revision, since: since!, context, ...delta, text };
  }
  return { kind: "full", revision, context, ...renderFull(items, revision, context) };
}
