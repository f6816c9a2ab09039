/**
 * Dedupe for the hook (README "The Claude Code hook", Dedupe): one Claude Code session is one
 * conversation, keyed on its `session_id`. The hook has no request to count turns in, so it keeps its own clock in the Store and
 * advances it on every prompt. A card injected at turn n is not injected again before turn
 * n + reinjectAfter (0 = inject on every match). Hook context stays in Claude Code's transcript, so
 * "already in context" holds until the context is compacted or cleared.
 */
import type { Store } from "../state/index.ts";

/** Conversation ids of hook sessions are prefixed, so they never collide with gateway ids. */
export function conversationId(sessionId: string): string {
  return `hook:${sessionId}`;
}

export interface TurnState {
  turn: number;
  /** Card ids (`kind/key`) still in context at this turn. */
  inContext: Set<string>;
}

/** Advance the session's clock and say which cards are still in context. */
export async function beginTurn(
  store: Store,
  conversation: string,
  reinjectAfter: number,
  now: number,
): Promise<TurnState> {
  const turn = await store.advanceTurn(conversation, now);
  const inContext = new Set<string>();
  if (reinjectAfter > 0) {
    for (const inj of (await store.loadConversation(conversation)).injections) {
      if (turn < inj.turn + reinjectAfter) inContext.add(inj.id);
    }
  }
  return { turn, inContext };
}

/** Record what went in at `turn`. */
export async function recordInjections(
  store: Store,
  conversation: string,
  turn: number,
  cards: readonly { id: string; version: string }[],
  now: number,
): Promise<void> {
  if (cards.length === 0) return;
  await store.commitTurn(conversation, {
    turn,
    now,
    injections: cards.map((c) => ({ id: c.id, version: c.version, turn })),
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
