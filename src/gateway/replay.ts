/**
 * Replay keeps the conversation append-only. The client never sees what we injected, so it resends
 * each old message without its cards. For every earlier injection we recorded the bytes, the message
 * they went into (index) and a hash of that message as the client sent it; while the message is still
 * there unchanged, the same bytes go back in the same place. Upstream then sees each request as the
 * previous one plus new messages (the prompt cache keeps its prefix) and "already in context" is true.
 * An edited or dropped message no longer matches: its cards count as gone and may be injected again.
 * Pure: decides edits from a view and stored records; the pipeline does the I/O.
 */

import { sentVersions } from "../recall/index.ts";
import type { Conversation, ReplayRecord } from "../state/index.ts";
import type { ChatView, Edit } from "./_chat.ts";
import { messageHashOf, type SlottedBlock, slotHash } from "./_slots.ts";

export interface ReplayPlan {
  /** Index of the message new cards go with (the last user message); -1 when there is none. */
  target: number;
  /** Turn index: the number of user messages. */
  turn: number;
  /** Stored blocks that still apply, in the order they go in (`inPromptOrder`). */
  replayed: ReplayRecord[];
  /** The same as edits. */
  edits: Edit[];
  /**
   * The records made for this very turn, all still in place: a regenerate, a retry, or the next
   * request of a tool loop. Null when this turn has no records yet (or one of them no longer applies,
   * and the turn is recalled again).
   */
  repeat: ReplayRecord[] | null;
  /**
   * Cards set aside before the budget: those of the stable block (it is in every request), and those
   * of other blocks younger than `reinjectAfter` turns.
   */
  inContext: Set<string>;
  /** What was last sent of each card still in the request: id → its version (recall/version.ts). */
  sent: Map<string, string>;
  /** The conversation's stable block is in place (a new always-on card then goes with the newest message). */
  stable: ReplayRecord | null;
  /** The newest block from an earlier turn that is replayed (where a cache breakpoint helps). */
  lastReplayed: ReplayRecord | null;
}

const TIER_RANK = { stable: 0, volatile: 1, placed: 2 } as const;

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
  const applies = (r: ReplayRecord) => r.anchor <= target && messageHashOf(r.hash) === view.hash(r.anchor);
  const ofThisTurn = records.filter((r) => r.turn === turn);
  const isRepeat = ofThisTurn.length > 0 && ofThisTurn.every(applies);
  // A turn whose own records no longer all apply (its message was edited) is recalled again whole.
  const live = records.filter((r) => applies(r) && (isRepeat || r.turn !== turn)).sort(inPromptOrder);
  const inContext = new Set<string>();
  const byTurn = [...live].sort((a, b) => a.turn - b.turn);
  for (const r of byTurn) {
    const always = r.tier === "stable";
    for (const c of r.cards) if (always || turn - r.turn < reinjectAfter) inContext.add(c.id);
  }
  const sent = sentVersions(byTurn.flatMap((r) => r.cards));
  const edits = live.map(editOf);
  const earlier = live.filter((r) => r.turn !== turn);
  return {
    target,
    turn,
    replayed: live,
    edits,
    repeat: isRepeat ? ofThisTurn : null,
    inContext,
    sent,
    stable: live.find((r) => r.tier === "stable") ?? null,
    lastReplayed: earlier.length === 0 ? null : earlier.reduce((a, b) => (b.turn >= a.turn ? b : a)),
  };
}

/**
 * The order blocks go into a prompt, the same on every request: by anchor; at one anchor the stable
 * block, then the volatile one, then placed blocks, older turns first (of two blocks in one place, the
 * older stays where it was).
 */
export function inPromptOrder(a: ReplayRecord, b: ReplayRecord): number {
  return a.anchor - b.anchor || rankOf(a) - rankOf(b) || a.turn - b.turn;
}

function rankOf(r: ReplayRecord): number {
  return TIER_RANK[r.tier ?? "volatile"];
}

export function editOf(r: ReplayRecord): Edit {
  return { anchor: r.anchor, place: r.place, text: r.text, ...(r.role && { role: r.role }) };
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

/** The record of a block placed now. */
export function recordFor(view: ChatView, turn: number, block: SlottedBlock): ReplayRecord {
  const { slot, tier } = block;
  return {
    anchor: slot.anchor,
    hash: slotHash(view.hash(slot.anchor), tier, slot, turn),
    place: slot.place,
    text: block.text,
    turn,
    cards: block.cards,
    ...(slot.role && { role: slot.role }),
    ...(tier !== "volatile" && { tier }),
  };
}

/** `kind/key` → key, for headers and the hit log. */
export function keyOfId(id: string): string {
  const slash = id.indexOf("/");
  return slash === -1 ? id : id.slice(slash + 1);
}
