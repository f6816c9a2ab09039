/**
 * One-time initialisation in the store (init.ts says what a submission may hold): whether it is still
 * to be done, and recording it once. The choice (done or skipped) is kept in the store's meta table,
 * so it is asked for once; a store that has learned anything no longer needs it.
 */
import { type Queries, toRecord } from "./_db.ts";
import { conversationHash, habitId } from "./_ids.ts";
import { isPaused, putHabit, shown } from "./_store.ts";
import { guessLocale } from "./dictionary.ts";
import { hintSignal } from "./hints.ts";
import { INIT_MAX_DAYS, INIT_MAX_SESSIONS, type InitSubmission } from "./init.ts";
import { preferenceKey } from "./profile.ts";
import { aggregated, type Rules, type Seen, sighted } from "./rules.ts";
import type { Signal } from "./sightings.ts";
import type { Habit } from "./types.ts";

export interface InitState {
  /** needed: an empty store, never initialised; not_needed: it has learned already. */
  state: "needed" | "done" | "skipped" | "not_needed";
  /** When it was done or skipped, on the book's clock. */
  at?: number;
  maxSessions: number;
  maxDays: number;
}

export type InitResult =
  | { status: "initialized"; recorded: Habit[] }
  | { status: "skipped" }
  | { status: "paused" }
  /** The submission is not one (a field refused, a bound crossed): nothing was recorded. */
  | { status: "refused"; reason: string }
  /** The choice was made before, or the store has learned already: it is made once. */
  | { status: "already"; reason: string };

const LIMITS = { maxSessions: INIT_MAX_SESSIONS, maxDays: INIT_MAX_DAYS };

export function initState(q: Queries | undefined): InitState {
  const kept = q?.meta.get("init")?.value;
  if (kept) {
    const { state, at } = JSON.parse(kept) as { state: "done" | "skipped"; at: number };
    return { state, at, ...LIMITS };
  }
  const learned = (q?.habitCount.get()?.n ?? 0) > 0;
  return { state: learned ? "not_needed" : "needed", ...LIMITS };
}

function seenOf(kind: "voice" | "preference", signal: string, source: Seen["source"]): Seen {
  const id = habitId(kind, kind === "preference" ? preferenceKey(signal) : signal);
  const locale = kind === "voice" ? "any" : guessLocale(signal);
  return { id, signal, kind, locale, useWhen: [], avoidWhen: [], source };
}

/** The expressions' signals (the dictionary's, when it knows the phrase), or why one is refused. */
export function initSignals(
  sub: InitSubmission,
  lookup: (signal: string) => Signal | undefined,
): Signal[] | string {
  const out: Signal[] = [];
  for (const e of sub.action === "submit" ? sub.expressions : []) {
    const s = hintSignal(e, lookup);
    if (typeof s === "string") return `expressions: ${s}`;
    out.push(s);
  }
  return out;
}

/** Records `sub` in one transaction, unless learning is paused or the choice was made already. */
export function applyInit(
  q: Queries,
  sub: InitSubmission,
  expressions: readonly Signal[],
  now: number,
  rules: Rules,
): InitResult {
  if (isPaused(q)) return { status: "paused" };
  const state = initState(q);
  if (state.state === "not_needed")
    return {
      status: "already",
      reason: "style memory has learned already: initialisation is for an empty store",
    };
  if (state.state !== "needed") {
    const when = new Date(state.at ?? 0).toISOString().slice(0, 10);
    return { status: "already", reason: `initialisation was ${state.state} on ${when}; it is done once` };
  }
  q.putMeta.run("init", JSON.stringify({ state: sub.action === "skip" ? "skipped" : "done", at: now }));
  if (sub.action === "skip") return { status: "skipped" };
  const recorded: Habit[] = [];
  const aggregates = [
    ...sub.voice.map((t) => seenOf("voice", t, "init")),
    ...sub.preferences.map((p) => seenOf("preference", p, "init")),
  ];
  for (const seen of aggregates) {
    const h = aggregated(seen, sub.sessions, now, rules);
    putHabit(q, h, true);
    recorded.push(shown(h));
  }
  // An expression is one low-weight sighting, a hint's: a candidate until the person is seen saying it.
  const conv = conversationHash("init");
  for (const s of expressions) {
    const id = habitId(s.kind, s.signal);
    const row = q.habit.get(id);
    const h = sighted(row ? toRecord(row) : undefined, { ...s, id }, conv, now, true, rules);
    putHabit(q, h, !row);
    recorded.push(shown(h));
  }
  return { status: "initialized", recorded };
}
