/**
 * Dedupe for the hook (README "The Claude Code hook", Dedupe): one Claude Code session is one
 * conversation, keyed on its `session_id`. The hook has no request to count turns in, so it keeps its own clock in the Store and
 * advances it on every prompt. A card injected at turn n is not injected again before turn
 * n + reinjectAfter (0 = inject on every match). Hook context stays in Claude Code's transcript, so
 * "already in context" holds until the context is compacted or cleared.
 *
 * A card edited since the session was sent it is sent again (with the note render puts under its
 * heading), as the gateway does: the ledger keeps the version of each card it sent (recall/version.ts),
 * and recall compares it with the card's text of now. Without that, the model worked from the old
 * text for as many prompts as the card stayed in context.
 *
 * The session also keeps recall's timed-effects memory (sticky, cooldown, delay), on the clock of its
 * prompts: prompt n is message 2n − 1 of the conversation (each prompt and each answer one message),
 * with n − 1 answers before it. A compaction or /clear starts the clock again and forgets the memory.
 */
import type { LoreSwitch } from "../defaults.ts";
import { sentVersions } from "../recall/index.ts";
import type { ConversationHistory } from "../recall/types.ts";
import type { Store, TimedRecords } from "../state/index.ts";

/** Conversation ids of hook sessions are prefixed, so they never collide with gateway ids. */
export function conversationId(sessionId: string): string {
  return `hook:${sessionId}`;
}

export interface TurnState {
  turn: number;
  /** Card ids (`kind/key`) still in context at this turn. */
  inContext: Set<string>;
  /** What the session last sent of each card: id → version (recall's `sent`). */
  sent: Map<string, string>;
  /** The conversation as recall's timed effects count it, with the memory the last prompt left. */
  history: ConversationHistory;
  /** The lore switch an agent set for the session (MCP `set_lore`), over the hook's `--lore`. */
  lore?: LoreSwitch;
}

/** Advance the session's clock and say which cards are still in context. */
export async function beginTurn(
  store: Store,
  conversation: string,
  reinjectAfter: number,
  now: number,
): Promise<TurnState> {
  const turn = await store.advanceTurn(conversation, now);
  const stored = await store.loadConversation(conversation);
  const inContext = new Set<string>();
  for (const inj of stored.injections) {
    // Turn 0 is the boot block (boot.ts): in context for as long as the session's context lasts.
    if (inj.turn === 0 || (reinjectAfter > 0 && turn < inj.turn + reinjectAfter)) inContext.add(inj.id);
  }
  return {
    turn,
    inContext,
    sent: sentVersions(stored.injections),
    history: historyAt(turn, stored.timed),
    ...(stored.lore && { lore: stored.lore }),
  };
}

/**
 * Prompt `turn` on the timed clock. Memory written at this message or later (a clock that went back)
 * is recall's to ignore (recall/stages/timed.ts).
 */
export function historyAt(turn: number, memory: TimedRecords): ConversationHistory {
  return { messages: 2 * turn - 1, assistantMessages: turn - 1, memory };
}

/**
 * Record what went in at `turn` and the timed memory recall left; nothing is written when no card
 * went in and the memory is and was empty.
 */
export async function recordTurn(
  store: Store,
  conversation: string,
  turn: number,
  recalled: { cards: readonly { id: string; version: string }[]; timed: TimedRecords; before: TimedRecords },
  now: number,
): Promise<void> {
  const { cards, timed, before } = recalled;
  if (cards.length === 0 && Object.keys(timed).length === 0 && Object.keys(before).length === 0) return;
  await store.commitTurn(conversation, {
    turn,
    now,
    injections: cards.map((c) => ({ id: c.id, version: c.version, turn })),
    timed,
  });
}

/** The boot block's cards, at turn 0: in context for the rest of the session (`beginTurn`). */
export async function recordBoot(
  store: Store,
  conversation: string,
  cards: readonly { id: string; version: string }[],
  now: number,
): Promise<void> {
  if (cards.length === 0) return;
  await store.commitTurn(conversation, {
    turn: 0,
    now,
    injections: cards.map((c) => ({ id: c.id, version: c.version, turn: 0 })),
  });
}

/**
 * Forget what the session injected: after a compaction or /clear the earlier hook context is gone from
 * the model's window. A commit at turn 0 starts a new clock and drops every later ledger row (Store
 * contract: "a turn lower than the stored one starts a new clock").
 */
export function resetSession(store: Store, conversation: string, now: number): Promise<void> {
  return store.commitTurn(conversation, { turn: 0, now });
}
