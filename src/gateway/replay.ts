/**
 * Replay keeps the conversation append-only. The client never sees what we injected, so it resends
 * each old message without its cards. For every earlier injection we recorded the bytes, the message
 * they went into (what it is and what it follows, and where it was); while that message is still
 * there, wherever it now sits, the same bytes go back in the same place. Upstream then sees each request as the
 * previous one plus new messages (the prompt cache keeps its prefix) and "already in context" is true.
 * An edited or dropped message no longer matches: its cards count as gone and may be injected again.
 * What counts as the same message is in docs/GATEWAY.md ("Conversations, dedupe and replay").
 * Pure: decides edits from a view and stored records; the pipeline does the I/O.
 */

import { sentVersions, typedText } from "../recall/index.ts";
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
   * request of a tool loop (always a repeat, records or not). Null when this turn has no records yet
   * (or one of them no longer applies, and the turn is recalled again).
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
  const { target, turn } = turnOf(view);
  const where = locate(view, target);
  // Each record with its message's place in this request; a record whose message is gone is dropped.
  const found: ReplayRecord[] = [];
  for (const r of records) {
    const at = where(r);
    if (at !== -1) found.push(at === r.anchor ? r : { ...r, anchor: at });
  }
  const ofThisTurn = records.filter((r) => r.turn === turn);
  const foundOfThisTurn = found.filter((r) => r.turn === turn);
  // The same turn again (a retry, a regenerate, a tool loop's next request) when its block is still
  // on the newest message, or every block of the turn is still in place. A record of this turn on a
  // message that is not here came from another request of the turn (a client's title request, which
  // wraps the prompt its own way); one whose message was edited means the turn is recalled again whole.
  // A tool's answer after the newest typed message is a tool loop's next request: an earlier request
  // of this turn carried that message already, so the turn only replays. A card first named inside
  // the loop (in the model's words beside its tool call) would otherwise go into a message the
  // provider has cached without it; it comes with the next message the person types instead.
  const isRepeat =
    toolLoop(view, target) ||
    (foundOfThisTurn.length > 0 &&
      (foundOfThisTurn.some((r) => r.anchor === target) || foundOfThisTurn.length === ofThisTurn.length));
  const live = found.filter((r) => isRepeat || r.turn !== turn).sort(inPromptOrder);
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
    repeat: isRepeat ? foundOfThisTurn : null,
    inContext,
    sent,
    stable: live.find((r) => r.tier === "stable") ?? null,
    lastReplayed: earlier.length === 0 ? null : earlier.reduce((a, b) => (b.turn >= a.turn ? b : a)),
  };
}

/**
 * The newest message the person wrote, and the turn it is (how many such messages there are). A user
 * message holding only what a client wraps around the person's words (Codex's AGENTS.md and
 * `<environment_context>` message, src/clients.ts) is not a turn and never the target.
 */
export function turnOf(view: ChatView): { target: number; turn: number } {
  let target = -1;
  let turn = 0;
  view.messages.forEach((m, i) => {
    if (m.role === "user" && typedText(m.text) !== "") {
      target = i;
      turn++;
    }
  });
  return { target, turn };
}

/** Whether a tool's answer follows the target (a tool loop under way: see `planReplay`). */
function toolLoop(view: ChatView, target: number): boolean {
  for (let i = target + 1; i < view.messages.length; i++)
    if (isToolAnswer(view.messages[i]!.role)) return true;
  return false;
}

/**
 * The roles the adapters give a tool's answer: `tool` (Chat Completions, Ollama, Anthropic's
 * `tool_result` messages, Gemini's function responses) and the Responses API's `…_call_output` items.
 */
function isToolAnswer(role: string): boolean {
  return role === "tool" || role.endsWith("_call_output");
}

/**
 * A record's message in this request, by what it is rather than where it was (its role and canonical
 * content, `ChatView.key`): a client that drops, inserts or moves messages before it (SillyTavern's
 * example dialogue, World Info and Author's Note messages) leaves the block with its message. Of two
 * messages with the same content (a second "yes"), the one after the message the record's followed,
 * then the one nearest its old place. A record from before keys (a bare hash) applies only where it
 * was. -1 when the message is gone or comes after the target.
 */
function locate(view: ChatView, target: number): (r: ReplayRecord) => number {
  let index: { byKey: Map<string, number[]>; follows: Map<number, string> } | undefined;
  const build = () => {
    const byKey = new Map<string, number[]>();
    const follows = new Map<number, string>();
    let previous = "";
    for (let i = 0; i <= target; i++) {
      const role = view.messages[i]!.role;
      if (role !== "user" && role !== "assistant") continue;
      const key = view.key(i);
      const list = byKey.get(key);
      if (list) list.push(i);
      else byKey.set(key, [i]);
      follows.set(i, previous);
      previous = key.slice(0, FOLLOWS_CHARS);
    }
    return { byKey, follows };
  };
  return (r) => {
    const message = messageHashOf(r.hash);
    const tilde = message.indexOf("~");
    if (tilde === -1) return r.anchor <= target && view.hash(r.anchor) === message ? r.anchor : -1;
    // Mostly the message is still where it was and follows what it followed: no other place can be
    // nearer, so the whole conversation need not be keyed to find it (a long one costs a hash a message).
    if (stillInPlace(view, r.anchor, target, message)) return r.anchor;
    index ??= build();
    const candidates = index.byKey.get(message.slice(0, tilde)) ?? [];
    if (candidates.length <= 1) return candidates[0] ?? -1;
    const after = message.slice(tilde + 1);
    const same = candidates.filter((i) => index!.follows.get(i) === after);
    const pool = same.length > 0 ? same : candidates;
    return pool.reduce((a, b) => (Math.abs(b - r.anchor) < Math.abs(a - r.anchor) ? b : a));
  };
}

/** Characters of the previous message's key a record keeps, to tell two equal messages apart. */
const FOLLOWS_CHARS = 8;

/** Whether the chat message at `anchor` is the one `identity` (its key and what it follows) names. */
function stillInPlace(view: ChatView, anchor: number, target: number, identity: string): boolean {
  const role = view.messages[anchor]?.role;
  if (anchor > target || (role !== "user" && role !== "assistant")) return false;
  return identityOf(view, anchor) === identity;
}

/** What a record made now says its message is: its key, and the key of the chat message before it. */
function identityOf(view: ChatView, anchor: number): string {
  let previous = "";
  for (let i = anchor - 1; i >= 0; i--) {
    const role = view.messages[i]!.role;
    if (role === "user" || role === "assistant") {
      previous = view.key(i).slice(0, FOLLOWS_CHARS);
      break;
    }
  }
  return `${view.key(anchor)}~${previous}`;
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
    hash: slotHash(identityOf(view, slot.anchor), tier, slot, turn),
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
