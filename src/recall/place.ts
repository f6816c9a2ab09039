/**
 * Stage 6, place: where each chosen card goes. Every card has one placement today, `default` (the
 * surface's one block: the gateway's prefix or system part, the hook's additionalContext); per-card
 * placement (a stable block and a volatile part, depth, role) lands here, and the render stage already
 * gives one block per placement in use.
 */
import type { Selected, Selection } from "./types.ts";

export function place(selection: Selection): Selected[] {
  return selection.map((entry) => (entry.verdict === "chosen" ? { ...entry, placement: "default" } : entry));
}
