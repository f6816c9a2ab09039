/**
 * Where each block of a turn goes in a chat body (README "Placement" and "Stable and volatile"), as
 * replay records: the same record then puts the same bytes in the same place on every later request.
 *   stable    the always-on cards, once per conversation, at the start of the first user message
 *             (`--inject system`: the adapter's system place), and replayed there for good
 *   volatile  in front of the newest user message (`--inject system`: the adapter's system place)
 *   placed    where the card's author asked: `before_*` positions in front of the system text, the
 *             other character/scenario positions after it, a depth as a message of the card's role
 *             that many chat messages from the end (SillyTavern's count: 0 = after the newest message,
 *             1 = before it), author's-note positions at SillyTavern's default note depth, 4
 * A slot is a record key: the anchor message's hash plus the tier, place and role (and the turn, for
 * placed blocks: two turns may place a block before the same message), so the store's "first record
 * for an (anchor, hash) wins" keeps one record per slot. A volatile block in front of a message keeps
 * the bare message hash, as records written before tiers have it.
 */

import type { CardPlacement } from "../card/types.ts";
import {
  aroundSystemText,
  type Chosen,
  chosenCards,
  type RecallResult,
  type RenderedBlock,
  typedText,
} from "../recall/index.ts";
import type { CardRef, Placement, ReplayRecord } from "../state/index.ts";
import type { Tier } from "../state/types.ts";
import { type ChatView, type Edit, GAP } from "./_chat.ts";
import type { ReplayPlan } from "./replay.ts";

/** SillyTavern's default depth for a card at depth with none given, and for the author's note. */
const DEFAULT_DEPTH = 4;

type Role = NonNullable<ReplayRecord["role"]>;

export interface Slot {
  anchor: number;
  place: Placement;
  role?: Role;
  /** For people (the door, stats): where it went. */
  where: string;
}

/** The message hash a record was made against (the part before the slot suffix). */
export function messageHashOf(recordHash: string): string {
  const slash = recordHash.indexOf("/");
  return slash === -1 ? recordHash : recordHash.slice(0, slash);
}

export function slotHash(messageHash: string, tier: Tier, slot: Slot, turn: number): string {
  if (tier === "volatile" && slot.place === "prefix") return messageHash;
  const turnPart = tier === "placed" ? `/${turn}` : "";
  return `${messageHash}/${tier}/${slot.place}/${slot.role ?? ""}${turnPart}`;
}

/** Indices of the chat messages (user and assistant, the ones a depth counts) up to `target`. */
function chatMessages(view: ChatView, target: number): number[] {
  const out: number[] = [];
  for (let i = 0; i <= target; i++) {
    const role = view.messages[i]!.role;
    if (role === "user" || role === "assistant") out.push(i);
  }
  return out;
}

/** The first message the person wrote (not one that only holds a client's wrapper: replay.ts `turnOf`). */
export function firstUser(view: ChatView): number {
  return view.messages.findIndex((m) => m.role === "user" && typedText(m.text) !== "");
}

/** The slot of a card's own placement. */
export function placedSlot(at: CardPlacement, view: ChatView, target: number): Slot {
  const first = firstUser(view);
  const position = at.position;
  if (at.depth === null && (position === "before_char" || position === "before_desc"))
    return { anchor: first, place: "system_start", where: "before the system text" };
  if (aroundSystemText(at)) return { anchor: first, place: "system", where: "after the system text" };
  const depth = at.depth ?? DEFAULT_DEPTH;
  const role: Role = at.role ?? "system";
  if (depth === 0) return { anchor: target, place: "after", role, where: `depth 0 as ${role}` };
  const chat = chatMessages(view, target);
  const anchor = chat[Math.max(0, chat.length - depth)] ?? target;
  return { anchor, place: "before", role, where: `depth ${depth} as ${role}` };
}

export interface SlotChoice {
  inject: "user" | "system";
  systemPlace: Placement;
  target: number;
}

/** The slot of a stable or volatile block. */
export function tierSlot(tier: "stable" | "volatile", view: ChatView, choice: SlotChoice): Slot {
  const anchor = tier === "stable" ? firstUser(view) : choice.target;
  const what = tier === "stable" ? "the first user message" : "the newest user message";
  if (choice.inject === "user") return { anchor, place: "prefix", where: `start of ${what}` };
  const where = choice.systemPlace === "system" ? "system text" : `system message after ${what}`;
  return { anchor, place: choice.systemPlace, where };
}

/** A block ready to record: its slot, its bytes (between our markers) and its cards. */
export interface SlottedBlock {
  tier: Tier;
  slot: Slot;
  text: string;
  cards: CardRef[];
  edited: string[];
}

/**
 * The turn's blocks in their slots. Two placed blocks that land in the same slot (two positions that
 * both mean "after the system text") become one, in block order.
 */
export function slotBlocks(
  blocks: readonly RenderedBlock[],
  slotOf: (block: RenderedBlock) => Slot,
  cardOf: (id: string) => { ref: CardRef; edited: boolean },
): SlottedBlock[] {
  const out: SlottedBlock[] = [];
  for (const block of blocks) {
    const slot = slotOf(block);
    const refs = block.cards.map(cardOf);
    const cards = refs.map((r) => r.ref);
    const edited = block.cards.filter((_, i) => refs[i]!.edited);
    const text = block.wrapped ?? block.text;
    const same = out.find(
      (b) =>
        b.tier === block.tier &&
        b.slot.anchor === slot.anchor &&
        b.slot.place === slot.place &&
        b.slot.role === slot.role,
    );
    if (same) {
      same.text = same.text + GAP + text;
      same.cards.push(...cards);
      same.edited.push(...edited);
    } else out.push({ tier: block.tier, slot, text, cards, edited });
  }
  return out;
}

/** The turn's blocks in their slots: without tiers, the one block where `--inject` says. */
export function placeBlocks(
  result: RecallResult,
  view: ChatView,
  plan: Pick<ReplayPlan, "target">,
  choice: { inject: "user" | "system" | "index"; systemPlace: Edit["place"] },
): SlottedBlock[] {
  const chosen = new Map<string, Chosen>(chosenCards(result).map((c) => [c.id, c]));
  // An index goes where `user` puts cards.
  const slots = {
    inject: choice.inject === "system" ? ("system" as const) : ("user" as const),
    systemPlace: choice.systemPlace,
    target: plan.target,
  };
  return slotBlocks(
    result.blocks,
    (b) =>
      b.tier === "placed" && b.at
        ? placedSlot(b.at, view, plan.target)
        : tierSlot(b.tier === "stable" ? "stable" : "volatile", view, slots),
    (id) => {
      const card = chosen.get(id);
      // What the conversation remembers it sent: the card's version (recall/version.ts).
      return { ref: { id, version: card?.version ?? "" }, edited: card?.edited === true };
    },
  );
}
