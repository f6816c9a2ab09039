/**
 * Stage 5, budget: which fired cards fit. First the character budget (cards' own characters): the top
 * card always gets in, and the first card that would overflow stops the list — later, smaller cards are
 * not squeezed in, so the order the user sees is the order of importance. Then a surface's cap on its
 * whole output (`maxContextChars`, framing and markers included, measured on the block render.ts will
 * produce): cards are dropped from the end until it fits; a lone card still too long is kept and cut,
 * so the top card always gets in here too.
 */
import type { Markers } from "../inject/index.ts";
import { frameBlock } from "./render.ts";
import type { Selected, Selection } from "./types.ts";

export interface BudgetLimits {
  /** Characters of cards. */
  budget: number;
  maxContextChars?: number;
  framing: string;
  markers?: Markers;
}

export function budget(selection: Selection, limits: BudgetLimits): Selected[] {
  const fitted = fitBudget(selection, limits.budget);
  return limits.maxContextChars === undefined ? fitted : fitCap(fitted, limits.maxContextChars, limits);
}

function fitBudget(selection: Selection, budget: number): Selected[] {
  let used = 0;
  let chosen = 0;
  let full = false;
  return selection.map((entry) => {
    if (entry.verdict !== "fired") return entry;
    const chars = entry.chars ?? 0;
    if (full || (chosen > 0 && used + chars > budget)) {
      full = true;
      return { ...entry, verdict: "left_out", reason: "budget" };
    }
    chosen++;
    used += chars;
    return { ...entry, verdict: "chosen" };
  });
}

/** Claude Code's hook context cap, as `fitContext` in the hook applied it before it moved here. */
function fitCap(selection: Selected[], cap: number, limits: BudgetLimits): Selected[] {
  const chosen = selection.filter((e) => e.verdict === "chosen");
  const size = (texts: string[]) => {
    const block = frameBlock(texts, limits.framing, limits.markers);
    return (block.wrapped ?? block.text).length;
  };
  const textsOf = (count: number) => chosen.slice(0, count).map((e) => e.text ?? "");
  let kept = chosen.length;
  while (kept > 1 && size(textsOf(kept)) > cap) kept--;
  // The room for a cut card's text: what is left beside the framing, the markers and the "…".
  const cutTo = kept === 1 && size(textsOf(1)) > cap ? cap - (size(["x…"]) - 1) : undefined;
  const dropped = new Set(chosen.slice(kept).map((e) => e.id));
  return selection.map((entry) => {
    if (dropped.has(entry.id)) return { ...entry, verdict: "left_out", reason: "surface_cap" };
    if (cutTo !== undefined && entry === chosen[0]) return { ...entry, cutTo };
    return entry;
  });
}
