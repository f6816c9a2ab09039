/**
 * The rules (rules.ts) as the store applies them, in one transaction's queries: learning paused or
 * not, the passing of time, the cap on habits, a habit as shown (its strength, no conversation
 * hashes), and finding a habit by id or by the signal only it has.
 */
import { LoreError } from "../errors.ts";
import { type Queries, rowValues, toRecord } from "./_db.ts";
import { styleFold } from "./fold.ts";
import { fate, type HabitRecord, RULES, type Rules, strengthOf } from "./rules.ts";
import type { Habit, HabitState } from "./types.ts";

export function isPaused(q: Queries): boolean {
  return q.meta.get("paused")?.value === "1";
}

/** The habits time may change at `now` (rules.ts `fate` decides which it does). */
export function aging(q: Queries, now: number, rules: Rules = RULES): HabitRecord[] {
  const rows = q.aging.all(now - rules.candidateTtl, now - rules.archiveAfter, now - rules.deleteAfter);
  return rows.map(toRecord);
}

/** Applies the passing of time to every habit it can change. */
export function sweep(q: Queries, now: number, rules: Rules = RULES): void {
  for (const h of aging(q, now, rules)) {
    const f = fate(h, now, rules);
    if (f === "delete") q.dropHabit.run(h.id);
    else if (f === "archive") q.putHabit.run(...rowValues({ ...h, state: "archived" }));
  }
}

/** Stores a habit; a new one past the cap drops the least recently seen unpinned candidates. */
export function putHabit(q: Queries, h: HabitRecord, added: boolean): void {
  q.putHabit.run(...rowValues(h));
  if (added && q.habitCount.get()!.n > RULES.habitCap) {
    for (const { id } of q.overCap.all(RULES.habitCap)) q.dropHabit.run(id);
  }
}

export function shown(h: HabitRecord): Habit {
  const { conversationHashes: _, ...rest } = h;
  return { ...rest, strength: strengthOf(rest) };
}

const STATE_ORDER: Record<HabitState, number> = { active: 0, candidate: 1, archived: 2 };

/** The list's order: active, candidates, archived; pinned first; most seen; latest; by id. */
export function listOrder(a: Habit, b: Habit): number {
  return (
    STATE_ORDER[a.state] - STATE_ORDER[b.state] ||
    Number(b.pinned) - Number(a.pinned) ||
    b.count - a.count ||
    b.lastSeen - a.lastSeen ||
    (a.id < b.id ? -1 : 1)
  );
}

/** The habit named by id, or by its signal when only one habit has it. */
export function findHabit(all: HabitRecord[], idOrSignal: string): HabitRecord {
  const key = String(idOrSignal ?? "").trim();
  const byId = all.find((h) => h.id === key);
  if (byId) return byId;
  const folded = styleFold(key);
  const bySignal = all.filter((h) => styleFold(h.signal) === folded);
  if (bySignal.length === 1) return bySignal[0]!;
  if (bySignal.length > 1) {
    const ids = bySignal.map((h) => `${h.id}: ${h.kind}`).join(", ");
    throw new LoreError("invalid_input", `several habits are "${key}" (${ids}); name one by id`);
  }
  throw new LoreError("not_found", `no habit "${key}" (see the list for ids)`);
}
