/**
 * Stage: place, which part of what is sent each card would go in, from the placement render recorded
 * (`position`, `depth`, `role`: card rules, README "Lorebook fields") and its policy (README "Stable
 * and volatile"). It runs before the budget, which keeps a chosen card's tier, and which in index
 * mode lists only the cards outside the stable block:
 *   placed    the card asks for a place of its own (a position or a depth): its author's word wins
 *   volatile  every card that came in on its words, was asked for, or was reached; an `always` card
 *             edited since it was sent (it goes with the newest message, once), or new once the
 *             conversation's stable block is in place (`stableSent`: those bytes never change)
 *   stable    an `always` card, unchanged: the block that never moves
 * `outlet` names a place only a prompt template can fill; a surface has none, so it is not a place.
 */
import type { CardPlacement, Policy } from "../../card/types.ts";
import type { Selected, Selection, Tier } from "../selection.ts";

export function place(selection: Selection, options: { stableSent?: boolean } = {}): Selected[] {
  const stableSent = options.stableSent === true;
  return selection.map((entry) => {
    if (entry.verdict !== "fired" || entry.placement === undefined) return entry;
    return { ...entry, tier: tierFor(entry.policy, entry.placement, entry.edited === true, stableSent) };
  });
}

/**
 * The tier of a card with this policy and placement. `stableSent`: the stable block is in place
 * already, and its bytes never change. The context door asks it of cards that did not go in, too.
 */
export function tierFor(policy: Policy, placement: CardPlacement, edited: boolean, stableSent = false): Tier {
  if (hasOwnPlace(placement)) return "placed";
  if (policy === "always" && !edited && !stableSent) return "stable";
  return "volatile";
}

/** A placement a surface can honour: a position other than `outlet`, or a depth. */
export function hasOwnPlace(placement: CardPlacement): boolean {
  if (placement.depth !== null) return true;
  return placement.position !== null && placement.position !== "outlet";
}
