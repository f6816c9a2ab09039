/**
 * Stage 6, place: where each card asks to go — its own placement (`position`, `depth`, `role`: card
 * rules, README "Lorebook fields"), recorded on every card that fired, chosen or not, so `try --json`
 * and the surfaces can read it. The surfaces still put every chosen card in their one block (the
 * gateway's prefix or system part, the hook's additionalContext: `RenderedBlock.placement` "default");
 * blocks per placement build on what is recorded here.
 */
import { rulesOf } from "../card/rules.ts";
import type { Selected, Selection } from "./types.ts";

export function place(selection: Selection): Selected[] {
  return selection.map((entry) =>
    entry.verdict === "vetoed" ? entry : { ...entry, placement: rulesOf(entry.card).placement },
  );
}
