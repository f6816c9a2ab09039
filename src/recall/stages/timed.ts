/**
 * Timed effects, pure: what a conversation's memory (RecallOptions.history) says about each card now,
 * and the memory to keep after this turn. The clock is the number of messages in the conversation, the
 * current one included, as SillyTavern counts it (its WorldInfoTimedEffects, `chat.length`):
 *   sticky N     a card chosen at count L stays in while the count is below L + N (it enters unnamed,
 *                skips its probability draw and wins its inclusion groups);
 *   cooldown N   a card chosen at L may not fire again while the count is below L + N; a sticky card
 *                is never cooled while sticky, and when its stickiness ends (first seen at count M)
 *                it cools until M + N, starting that very turn;
 *   delay N      no firing while the count is below N (this beats sticky too).
 * And the card spec's history decorators (§9.2), on the count of assistant messages A:
 *   `@@activate_only_after N` fires only when A > N; `@@activate_only_every N` only when A is a
 *   multiple of N; `@@keep_activate_after_match` is sticky for the rest of the conversation (stored as
 *   -1); `@@dont_activate_after_match` is spent once it fired (vetoed `timing` from then on).
 * A memory entry set at this count or later is from a retried turn (the same message again) and is
 * ignored, as SillyTavern drops effects when the chat did not advance. "Fired" here is what reached the
 * model: chosen, or already in context (SillyTavern counts what it activated; a card left out by the
 * budget starts nothing).
 */
import { rulesOf } from "../../card/rules.ts";
import type { CardMeta, CardRules } from "../../card/types.ts";
import { type Selected, type Selection, type TimedStop, type Veto, vetoed } from "../selection.ts";
import type { ConversationHistory, TimedEntry, TimedMemory, Turn } from "../types.ts";

type TimedReason = Extract<Veto, { stop: TimedStop }>["reason"];

/** `stickyUntil` of `@@keep_activate_after_match`: for the rest of the conversation. */
const FOREVER = -1;

/** The conversation's memory with the counts it is read at. Without history: this turn is the first. */
export function clockOf(turns: readonly Turn[], history?: ConversationHistory): ConversationHistory {
  if (history) return history;
  const assistantMessages = turns.filter((t) => t.role === "assistant").length;
  return { messages: turns.length, assistantMessages, memory: {} };
}

/** The card's memory entry, unless it was written at this count or later (a retried turn). */
function entryOf(clock: ConversationHistory, id: string): TimedEntry | undefined {
  const entry = clock.memory[id];
  return entry && entry.last < clock.messages ? entry : undefined;
}

function stickyOn(rules: CardRules, entry: TimedEntry | undefined, now: number): boolean {
  if (entry?.stickyUntil === undefined) return false;
  if (entry.stickyUntil === FOREVER) return rules.keepAfterMatch;
  return rules.sticky > 0 && entry.stickyUntil > now;
}

/** Cooling now: its own cooldown still runs, or its stickiness has just ended. */
function cooling(rules: CardRules, entry: TimedEntry | undefined, now: number): boolean {
  if (rules.cooldown <= 0 || !entry) return false;
  if ((entry.cooldownUntil ?? 0) > now) return true;
  return entry.stickyUntil !== undefined && entry.stickyUntil !== FOREVER && entry.stickyUntil <= now;
}

/** Ids in the memory whose stickiness holds now (`cardOf` gives the current card, undefined if gone). */
export function stickyIds(
  clock: ConversationHistory,
  cardOf: (id: string) => CardMeta | undefined,
): string[] {
  return Object.keys(clock.memory)
    .filter((id) => {
      const card = cardOf(id);
      return card !== undefined && stickyOn(rulesOf(card), entryOf(clock, id), clock.messages);
    })
    .sort();
}

/** Why the clock stops a card now, or null. Sticky cards pass all but `delay` and a spent decorator. */
export function timedVeto(
  card: CardMeta,
  id: string,
  clock: ConversationHistory,
  sticky: boolean,
): TimedReason | null {
  const stop = timedStop(card, id, clock, sticky);
  return stop === null ? null : REASONS[stop.rule];
}

const REASONS: Record<TimedStop["rule"], TimedReason> = {
  delay: "delay",
  cooldown: "cooldown",
  activate_only_after: "timing",
  activate_only_every: "timing",
  dont_activate_after_match: "timing",
};

/** The rule of the clock that stops a card now, with the counts it reads (for the context door), or null. */
export function timedStop(
  card: CardMeta,
  id: string,
  clock: ConversationHistory,
  sticky: boolean,
): TimedStop | null {
  const rules = rulesOf(card);
  const entry = entryOf(clock, id);
  const now = clock.messages;
  if (rules.dontAfterMatch && entry?.spent) return { rule: "dont_activate_after_match", now };
  if (now < rules.delay) return { rule: "delay", now, until: rules.delay };
  if (sticky) return null;
  if (cooling(rules, entry, now)) {
    // Its own cooldown, or the one that starts as its stickiness ends (nextMemory: now + cooldown).
    const own = entry?.cooldownUntil;
    return { rule: "cooldown", now, until: own !== undefined && own > now ? own : now + rules.cooldown };
  }
  const answers = clock.assistantMessages;
  const after = rules.activateOnlyAfter;
  if (after !== null && answers <= after)
    return { rule: "activate_only_after", now: answers, until: after + 1 };
  const every = rules.activateOnlyEvery;
  if (every !== null && every > 0 && answers % every !== 0)
    return { rule: "activate_only_every", now: answers, until: Math.ceil(answers / every) * every };
  return null;
}

/**
 * Stage: timed effects. Every fired card of the batch the clock stops is vetoed (`delay`, `cooldown`,
 * `timing`); cards asked for by id are not stopped (the person's explicit choice).
 */
export function timed(
  selection: Selection,
  options: { clock: ConversationHistory; sticky: ReadonlySet<string>; batch?: ReadonlySet<string> },
): Selected[] {
  return selection.map((entry) => {
    if (entry.verdict !== "fired" || entry.via === "explicit") return entry;
    if (options.batch && !options.batch.has(entry.id)) return entry;
    const stop = timedStop(entry.card, entry.id, options.clock, options.sticky.has(entry.id));
    return stop === null ? entry : vetoed(entry, { reason: REASONS[stop.rule], stop });
  });
}

/**
 * The memory after this turn: cards that reached the model (chosen or in context) start their effects;
 * the others keep what still runs (a sticky card left out by the budget stays sticky); a stickiness
 * that ended turns into its cooldown; entries with nothing left running are dropped.
 */
export function nextMemory(
  selection: Selection,
  clock: ConversationHistory,
  cardOf: (id: string) => CardMeta | undefined,
): TimedMemory {
  const fired = new Map<string, CardMeta>();
  for (const e of selection)
    if (e.verdict === "chosen" || e.verdict === "in_context") fired.set(e.id, e.card);
  const ids = [...new Set([...Object.keys(clock.memory), ...fired.keys()])].sort();
  const out: Record<string, TimedEntry> = {};
  for (const id of ids) {
    const entry = entryOf(clock, id);
    const card = fired.get(id) ?? cardOf(id);
    const next = fired.has(id)
      ? firedEntry(rulesOf(card!), entry, clock.messages)
      : keptEntry(card && rulesOf(card), entry, clock.messages);
    if (next) out[id] = next;
  }
  return out;
}

function firedEntry(rules: CardRules, entry: TimedEntry | undefined, now: number): TimedEntry | undefined {
  if (entry && stickyOn(rules, entry, now)) return entry; // still the same stickiness: nothing restarts
  const next: TimedEntry = { last: now };
  if (rules.keepAfterMatch) next.stickyUntil = FOREVER;
  else if (rules.sticky > 0) next.stickyUntil = now + rules.sticky;
  if (rules.cooldown > 0) {
    const running = entry?.cooldownUntil !== undefined && entry.cooldownUntil > now;
    next.cooldownUntil = running ? entry.cooldownUntil : now + rules.cooldown;
  }
  if (rules.dontAfterMatch) next.spent = true;
  return next.stickyUntil !== undefined || next.cooldownUntil !== undefined || next.spent ? next : undefined;
}

/** A card that did not reach the model: what of its memory still runs. `rules` undefined = card gone. */
function keptEntry(
  rules: CardRules | undefined,
  entry: TimedEntry | undefined,
  now: number,
): TimedEntry | undefined {
  if (!entry) return undefined;
  const next: TimedEntry = { last: entry.last };
  const until = entry.stickyUntil;
  const running = until === FOREVER || (until !== undefined && until > now);
  if (until !== undefined && running && (!rules || stickyOn(rules, entry, now))) next.stickyUntil = until;
  else if (until !== undefined && !running && rules && rules.cooldown > 0)
    next.cooldownUntil = now + rules.cooldown;
  if (next.cooldownUntil === undefined && entry.cooldownUntil !== undefined && entry.cooldownUntil > now) {
    next.cooldownUntil = entry.cooldownUntil;
  }
  if (entry.spent) next.spent = true;
  return next.stickyUntil !== undefined || next.cooldownUntil !== undefined || next.spent ? next : undefined;
}
