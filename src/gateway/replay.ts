/**
 * Replay keeps the conversation append-only. The client never sees what we injected, so it resends
 * each old message without its cards. For every earlier injection we recorded the bytes, the message
 * they went into (index) and a hash of that message as the client sent it; while the message is still
 * there unchanged, the same bytes go back in the same place. Upstream then sees each request as the
 * previous one plus new messages (the prompt cache keeps its prefix) and "already in context" is true.
 * An edited or dropped message no longer matches: its cards count as gone and may be injected again.
 * Pure: decides edits from a view and stored records; the pipeline does the I/O.
 */

import type { CardRef, Conversation, Placement, ReplayRecord } from "../state/index.ts";
import type { ChatView, Edit } from "./_chat.ts";

export interface ReplayPlan {
  /** Index of the message new cards go with (the last user message); -1 when there is none. */
  target: number;
  /** Turn index: the number of user messages. */
  turn: number;
  /** Stored blocks that still apply, in anchor order, to be re-inserted. */
  edits: Edit[];
  /** The record already made for the target message: a regenerate or retry of this turn. */
  repeat: ReplayRecord | null;
  /** Cards whose copy in context is younger than `reinjectAfter` turns: set aside before the budget. */
  inContext: Set<string>;
}

export function planReplay(
  view: ChatView,
  records: readonly ReplayRecord[],
  reinjectAfter: number,
): ReplayPlan {
  let target = -1;
  let turn = 0;
  view.messages.forEach((m, i) => {
    if (m.role === "user") {
      target = i;
      turn++;
    }
  });
  const live = records.filter((r) => r.anchor <= target && r.hash === view.hash(r.anchor));
  const repeat = live.find((r) => r.anchor === target) ?? null;
  const inContext = new Set<string>();
  for (const r of live) {
    if (turn - r.turn < reinjectAfter) for (const c of r.cards) inContext.add(c.id);
  }
  const edits = live.map((r) => ({ anchor: r.anchor, place: r.place, text: r.text }));
  return { target, turn, edits, repeat, inContext };
}

/**
 * Plain per-turn injection (no replay): nothing is re-inserted, and a card counts as in context while
 * the ledger says it went in fewer than `reinjectAfter` turns ago. For comparison only.
 */
export function planWithoutReplay(view: ChatView, state: Conversation, reinjectAfter: number): ReplayPlan {
  const plan = planReplay(view, [], reinjectAfter);
  for (const inj of state.injections) {
    const age = plan.turn - inj.turn;
    if (age >= 0 && age < reinjectAfter) plan.inContext.add(inj.id);
  }
  return plan;
}

/** The record for a block injected now into the target message. */
export function recordFor(
  view: ChatView,
  plan: ReplayPlan,
  place: Placement,
  text: string,
  cards: CardRef[],
): ReplayRecord {
  return { anchor: plan.target, hash: view.hash(plan.target), place, text, turn: plan.turn, cards };
}

/** `kind/key` → key, for headers and the hit log. */
export function keyOfId(id: string): string {
  const slash = id.indexOf("/");
  return slash === -1 ? id : id.slice(slash + 1);
}
