/**
 * What one batch of the person's messages teaches, in two steps that may run in different processes:
 * reading them (`readObserved`: their sightings and the one excerpt each may give, made where the
 * message is) and learning that in one transaction of the store (`learnBatch`). The book does both at
 * once; the hook reads a prompt, puts what it read in the inbox (_inbox.ts), and the next reader of
 * style memory learns it, each batch with its own moment and rules, so the habits end the same.
 */
import { excerpt } from "../sanitize.ts";
import { type Queries, rowValues, toRecord } from "./_db.ts";
import { conversationHash, habitId } from "./_ids.ts";
import { putHabit, sweep } from "./_store.ts";
import { styleFold } from "./fold.ts";
import { type HabitRecord, type Rules, type Seen, sighted } from "./rules.ts";
import type { TermScanner } from "./scanner.ts";
import { copiedSignal, type DictionaryReader, readMessage, type Sighting, type Signal } from "./sightings.ts";

/** A signal found in a message; `start` < 0 for a measured trait (no place in the text, no example). */
export interface Found extends Signal {
  start: number;
}

/** One message as read: the hashed conversation, what it shows, and its one excerpt (made on first need). */
export interface Observed {
  conv: string;
  sightings: Found[];
  excerpt(): string | undefined;
}

export interface ReadContext {
  reader: DictionaryReader;
  learned?: TermScanner<Signal>;
  /** Characters of a habit's example (rules.ts `exampleLength`). */
  keep: number;
}

/** The messages that show anything, read; the others teach nothing. */
export function readObserved(
  messages: readonly { conversation: string; text: string }[],
  context: ReadContext,
): Observed[] {
  const out: Observed[] = [];
  for (const m of messages) {
    if (typeof m.text !== "string" || m.text.trim() === "") continue;
    const { sightings } = readMessage(m.text, context.reader, context.learned);
    if (sightings.length === 0) continue;
    out.push({
      conv: conversationHash(String(m.conversation)),
      sightings: sightings.map(foundOf),
      excerpt: once(() => (context.keep > 0 ? excerpt(m.text, context.keep) : undefined)),
    });
  }
  return out;
}

/**
 * Learns `batch` at `now` under `rules`, in the caller's transaction: nothing while learning is paused;
 * then the passing of time is applied once. A habit seen again in the batch is read once and written
 * once: the sightings fold over the record in memory, in order, as they would row by row. A new habit
 * is stored at once (the cap it may trip reads the table), after what the batch changed so far.
 */
export function learnBatch(q: Queries, batch: readonly Observed[], now: number, rules: Rules): void {
  if (q.meta.get("paused")?.value === "1") return;
  const changed = new Map<string, HabitRecord>();
  const flush = () => {
    for (const h of changed.values()) q.putHabit.run(...rowValues(h));
    changed.clear();
  };
  for (const o of batch) {
    let shows: ((signal: string) => string | undefined) | undefined;
    for (const s of o.sightings) {
      const id = habitId(s.kind, s.signal);
      const stored = changed.has(id) ? undefined : q.habit.get(id);
      const prev = changed.get(id) ?? (stored ? toRecord(stored) : undefined);
      let example = prev?.example;
      if (example === undefined && s.start >= 0) {
        shows ??= showing(o.excerpt());
        example = shows(s.signal);
      }
      const next = sighted(prev, seenOf(id, s, example), o.conv, now, false, rules);
      if (prev) changed.set(id, next);
      else {
        flush();
        putHabit(q, next, true);
      }
    }
  }
  flush();
  sweep(q, now, rules);
}

/** A sighting without its end (what the inbox keeps). */
function foundOf(s: Sighting): Found {
  const found = copiedSignal(s) as Found;
  found.start = s.start;
  return found;
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/**
 * The example a message can give a habit: its one excerpt (sanitize.ts, the same the hit log keeps),
 * for the habits the excerpt shows (its folded text holds theirs). Never a second window of the
 * message: two could be joined back.
 */
export function showing(example: string | undefined): (signal: string) => string | undefined {
  const folded = example === undefined ? "" : styleFold(example);
  return (signal) => (example !== undefined && folded.includes(styleFold(signal)) ? example : undefined);
}

export function seenOf(id: string, s: Signal, example: string | undefined): Seen {
  const seen = copiedSignal(s) as Seen;
  seen.id = id;
  if (example !== undefined) seen.example = example;
  return seen;
}
