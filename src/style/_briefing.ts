/**
 * The brief's content as the store has it now: the habits as shown, the brief's items under the
 * settings' caps, and the revision they settle to (a write only when the content moved). The brief and
 * the health score both start here; the revision last handed out ("served") is what the score's
 * refresh advice compares with. Loaded only when a brief or a score is asked for.
 */
import { type Queries, type StyleDb, toRecord } from "./_db.ts";
import { isSettled, settleRevision, storedRevision } from "./_revisions.ts";
import { shown } from "./_store.ts";
import { briefItems } from "./brief.ts";
import type { Rules } from "./rules.ts";
import { type StyleScore, styleScore } from "./score.ts";
import type { BriefItem, Habit } from "./types.ts";

export interface Current {
  habits: Habit[];
  items: BriefItem[];
  revision: number;
}

export function currentBrief(db: StyleDb, rules: Rules, now: number): Current {
  const habits = db.read((q) => q.habits.all().map(toRecord), []).map(shown);
  const items = briefItems(habits, rules.briefItems);
  const stored = db.read(storedRevision, { revision: 0, hash: "" });
  const revision = isSettled(stored, items)
    ? stored.revision
    : db.write((q) => settleRevision(q, items, now));
  return { habits, items, revision };
}

/** The health score now (score.ts), with the inactive TTL in force and the revision the caller holds. */
export function scoreNow(
  db: StyleDb,
  rules: Rules,
  now: number,
  options: { inactiveTtlDays: number; since?: number },
): StyleScore {
  const { habits, revision } = currentBrief(db, rules, now);
  const served = db.read(servedRevision, 0);
  return styleScore({ habits, now, revision, served, ...options });
}

/** The revision last handed out in full or as a delta (0: none yet). */
export function servedRevision(q: Queries): number {
  return Number(q.meta.get("served")?.value ?? 0);
}

/** Notes that `revision` was handed out, when it is news. */
export function markServed(db: StyleDb, revision: number): void {
  if (revision > 0 && db.read(servedRevision, 0) !== revision)
    db.write((q) => q.putMeta.run("served", String(revision)));
}
