/**
 * Stage: place, which part of what is sent each card would go in, from the placement render recorded
 * (`position`, `depth`, `role`: card rules, README "Lorebook fields") and its policy (README "Stable
 * and volatile"). It runs before the budget, which keeps a chosen card's tier, and which in index
 * mode lists only the cards outside the stable block:
 *   placed    the card asks for a place of its own (a position or a depth): its author's word wins,
 *             but a place in or beside the system text only on the conversation's first turn
 *   volatile  every card that came in on its words, was asked for, or was reached; an `always` card
 *             edited since it was sent (it goes with the newest message, once), or new once the
 *             conversation's stable block is in place (`stableSent`: those bytes never change)
 *   stable    an `always` card, unchanged: the block that never moves
 * A card may ask which block it starts in (the writing app's `use(node, "stable")`): its own `tier:`
 * field, or the request's hint for it (`hints`, which wins). `stable` puts any unchanged card in the
 * stable block while that block is still being made; `volatile` keeps an `always` card out of it. A
 * hint never overrides a real change: an edited card goes with the newest message whatever it says,
 * and a stable block already in place is never reopened. A card with a place of its own keeps it.
 * `outlet` names a place only a prompt template can fill; a surface has none, so it is not a place.
 */
import { rulesOf } from "../../card/rules.ts";
import type { CardPlacement, Policy, TierHint } from "../../card/types.ts";
import type { Selected, Selection, Tier } from "../selection.ts";

export interface PlaceOptions {
  stableSent?: boolean;
  /** The request's hints, by card id; they win over the cards' own `tier:`. */
  hints?: ReadonlyMap<string, TierHint>;
}

export function place(selection: Selection, options: PlaceOptions = {}): Selected[] {
  const stableSent = options.stableSent === true;
  return selection.map((entry) => {
    if (entry.verdict !== "fired" || entry.placement === undefined) return entry;
    const hint = options.hints?.get(entry.id) ?? entry.hint ?? rulesOf(entry.card).tierHint ?? undefined;
    const tier = tierFor(entry.policy, entry.placement, entry.edited === true, stableSent, hint);
    return { ...entry, tier, ...(hint && { hint }) };
  });
}

/**
 * The tier of a card with this policy, placement and hint. `stableSent`: the stable block is in place
 * already, and its bytes never change. The context door asks it of cards that did not go in, too.
 */
export function tierFor(
  policy: Policy,
  placement: CardPlacement,
  edited: boolean,
  stableSent = false,
  hint?: TierHint,
): Tier {
  if (hasOwnPlace(placement) && !(stableSent && aroundSystemText(placement))) return "placed";
  if (edited || stableSent || hint === "volatile") return "volatile";
  return policy === "always" || hint === "stable" ? "stable" : "volatile";
}

/**
 * A place in or beside the system text (SillyTavern's character and scenario positions): the start of
 * the conversation. Once its first turn has gone (`stableSent`), a card placed there would change what
 * the provider has cached from the start on, and on every turn a new one fires (an imported book's
 * entries mostly have such a position); it goes with the newest message instead, and replay keeps it
 * there. A depth is counted from the end, so it moves only the messages after it.
 */
export function aroundSystemText(placement: CardPlacement): boolean {
  if (placement.depth !== null) return false;
  const p = placement.position;
  return p !== null && p !== "outlet" && p !== "at_depth" && p !== "an_top" && p !== "an_bottom";
}

/** A placement a surface can honour: a position other than `outlet`, or a depth. */
export function hasOwnPlace(placement: CardPlacement): boolean {
  if (placement.depth !== null) return true;
  return placement.position !== null && placement.position !== "outlet";
}
