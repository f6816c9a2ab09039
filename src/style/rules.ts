/**
 * The life of a habit, written once and pure (the store only applies it):
 *
 * - every sighting counts: a message of the person's own, or an agent's hint, which weighs the same;
 * - a habit is a candidate until seen at least twice in at least two different conversations, and
 *   nothing skips that gate (a hint is one sighting, a pin is the person's own choice: see `pinned`);
 * - a candidate unseen for 30 days is deleted; an active habit unseen for 180 days is archived, and
 *   deleted at 360; a sighting brings an archived habit back; a pinned habit never expires;
 * - only a sighting refreshes a habit: the model using it, or the brief showing it, never does.
 *
 * Conversations are kept as short hashes of their ids, the most recent 16, with a count of how many
 * different ones there were.
 */
import { EXAMPLE_MAX } from "../sanitize.ts";
import type { Habit, HabitState, Strength } from "./types.ts";

export const DAY = 86_400_000;

export const RULES = {
  /** The gate: sightings, and different conversations among them. */
  gateSightings: 2,
  gateConversations: 2,
  candidateTtl: 30 * DAY,
  archiveAfter: 180 * DAY,
  deleteAfter: 360 * DAY,
  /** Conversation hashes kept per habit. */
  conversationCap: 16,
  /** Habits kept at most; beyond it the least recently seen unpinned candidates go first. */
  habitCap: 2000,
  /** Lines of habits in the whole brief; the sections' own caps (brief.ts) add up to no more. */
  briefItems: 26,
  /** Characters of a habit's one example. */
  exampleLength: EXAMPLE_MAX,
};

/** The rules in force: the defaults above, or what the settings make of them (settings.ts). */
export type Rules = { readonly [K in keyof typeof RULES]: number };

/** A habit as stored: what `Habit` shows plus the hashes of its conversations. */
export interface HabitRecord extends Omit<Habit, "strength"> {
  conversationHashes: string[];
}

export type Fate = "keep" | "archive" | "delete";

/** What the passing of time does to a habit at `now`. */
export function fate(
  h: Pick<HabitRecord, "state" | "pinned" | "lastSeen">,
  now: number,
  rules: Rules = RULES,
): Fate {
  if (h.pinned) return "keep";
  const unseen = now - h.lastSeen;
  if (h.state === "candidate") return unseen >= rules.candidateTtl ? "delete" : "keep";
  if (unseen >= rules.deleteAfter) return "delete";
  if (h.state === "active" && unseen >= rules.archiveAfter) return "archive";
  return "keep";
}

export function passesGate(h: Pick<HabitRecord, "count" | "conversations">, rules: Rules = RULES): boolean {
  return h.count >= rules.gateSightings && h.conversations >= rules.gateConversations;
}

/** The state after a sighting: the gate decides for a candidate; an archived habit comes back. */
export function stateAfterSighting(state: HabitState, passed: boolean): HabitState {
  if (state === "candidate") return passed ? "active" : "candidate";
  return "active";
}

/** What a sighting or hint carries: the habit's description (refreshed each time) and an example. */
export type Seen = Pick<
  HabitRecord,
  "id" | "signal" | "kind" | "locale" | "note" | "useWhen" | "avoidWhen" | "source" | "example"
>;

/** The habit after one more sighting in the conversation whose hash is `conversation`. */
export function sighted(
  prev: HabitRecord | undefined,
  seen: Seen,
  conversation: string,
  now: number,
  hint: boolean,
  rules: Rules = RULES,
): HabitRecord {
  const hashes = prev?.conversationHashes ?? [];
  const known = hashes.includes(conversation);
  const conversationHashes = latestLast(hashes, conversation, known, rules.conversationCap);
  const count = (prev?.count ?? 0) + 1;
  const conversations = (prev?.conversations ?? 0) + (known ? 0 : 1);
  const state = stateAfterSighting(prev?.state ?? "candidate", passesGate({ count, conversations }, rules));
  const example = prev?.example ?? seen.example;
  // Field by field, the optional ones added only when there: a spread of `seen` and a `delete` after
  // it cost more than the rest of a sighting, and a deleted field leaves the object slow to read.
  const next: HabitRecord = {
    id: seen.id,
    // The first spelling stays: "Tiny  but mighty" hinted later is the same habit, shown as first seen.
    signal: prev?.signal ?? seen.signal,
    kind: seen.kind,
    locale: seen.locale,
    useWhen: seen.useWhen,
    avoidWhen: seen.avoidWhen,
    // A habit found in the dictionary keeps that source when an agent hints at it too.
    source: prev && prev.source !== "hint" ? prev.source : seen.source,
    state,
    pinned: prev?.pinned ?? false,
    count,
    hints: (prev?.hints ?? 0) + (hint ? 1 : 0),
    conversations,
    conversationHashes,
    firstSeen: prev?.firstSeen ?? now,
    lastSeen: Math.max(prev?.lastSeen ?? now, now),
  };
  if (seen.note !== undefined) next.note = seen.note;
  if (example !== undefined) next.example = example;
  return next;
}

/**
 * `hashes` with `conversation` moved (or added) to the end, the latest `cap` kept. A sighting in a
 * conversation the habit has not been seen in is the common case (a batch of new messages): one copy
 * of the kept part, not a filtered copy, a spread and a slice.
 */
function latestLast(hashes: readonly string[], conversation: string, known: boolean, cap: number): string[] {
  if (known || !Number.isInteger(cap) || cap < 1)
    return [...hashes.filter((h) => h !== conversation), conversation].slice(-cap);
  const out = hashes.slice(Math.max(0, hashes.length + 1 - cap));
  out.push(conversation);
  return out;
}

/**
 * Pinning is the person's own choice, so it makes a habit active whatever the gate says (an agent
 * cannot pin); unpinning leaves the state as it is and lets the rules apply again from `lastSeen`.
 */
export function pinned(h: HabitRecord, pin: boolean): HabitRecord {
  return { ...h, pinned: pin, state: pin ? "active" : h.state };
}

/** Light when just past the gate; regular from 5 sightings in 3 conversations; strong from 12 in 4. */
export function strengthOf(h: Pick<HabitRecord, "count" | "conversations">): Strength {
  if (h.count >= 12 && h.conversations >= 4) return "strong";
  if (h.count >= 5 && h.conversations >= 3) return "regular";
  return "light";
}

/**
 * A habit from an aggregate (one-time initialisation, init.ts): seen once in each of `sessions`
 * conversations the host looked at, so it is active when those are two or more.
 */
export function aggregated(seen: Seen, sessions: number, now: number, rules: Rules = RULES): HabitRecord {
  const conversationHashes = Array.from(
    { length: Math.min(sessions, rules.conversationCap) },
    (_, i) => `init-${i + 1}`,
  );
  const counts = { count: sessions, conversations: sessions };
  const record: HabitRecord = {
    ...seen,
    state: passesGate(counts, rules) ? "active" : "candidate",
    pinned: false,
    ...counts,
    hints: 0,
    conversationHashes,
    firstSeen: now,
    lastSeen: now,
  };
  if (record.example === undefined) delete record.example;
  if (record.note === undefined) delete record.note;
  return record;
}
