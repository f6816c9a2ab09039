/**
 * Stage 6, place: where each card goes. Every card that fired carries its own placement (`position`,
 * `depth`, `role`: card rules, README "Lorebook fields"), so `try --json` and the door can show it;
 * every chosen card also gets its tier (README "Stable and volatile"):
 *   placed    the card asks for a place of its own (a position or a depth): its author's word wins
 *   volatile  every card that came in on its words, was asked for, or was reached; an `always` card
 *             edited since it was sent (it goes with the newest message, once), or new once the
 *             conversation's stable block is in place (`stableSent`: those bytes never change)
 *   stable    an `always` card, unchanged: the block that never moves
 * `outlet` names a place only a prompt template can fill; a surface has none, so it is not a place.
 */
import { rulesOf } from "../card/rules.ts";
import type { CardPlacement } from "../card/types.ts";
import type { Selected, Selection, Tier } from "./types.ts";

export function place(selection: Selection, options: { stableSent?: boolean } = {}): Selected[] {
  return selection.map((entry) => {
    if (entry.verdict === "vetoed") return entry;
    const placement = rulesOf(entry.card).placement;
    if (entry.verdict !== "chosen") return { ...entry, placement };
    return { ...entry, placement, tier: tierOf(entry, placement, options.stableSent === true) };
  });
}

/** `stableSent`: the stable block is in place already, and its bytes never change. */
function tierOf(entry: Selected, placement: CardPlacement, stableSent: boolean): Tier {
  if (hasOwnPlace(placement)) return "placed";
  if (entry.policy === "always" && !entry.edited && !stableSent) return "stable";
  return "volatile";
}

/** A placement a surface can honour: a position other than `outlet`, or a depth. */
export function hasOwnPlace(placement: CardPlacement): boolean {
  if (placement.depth !== null) return true;
  return placement.position !== null && placement.position !== "outlet";
}
