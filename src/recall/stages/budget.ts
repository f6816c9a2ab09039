/**
 * Stage: budget, which fired cards fit. Seed 004's two halves: the declared half (always-on cards and
 * cards asked for by id or name) is sent whole and never counted; the budgets cap only the automatic
 * half (what recall noticed, still-sticky cards, what it reached), whole cards only, in the order
 * stage's order (closest to the person's words first), so the cards dropped are the farthest from
 * them. The budgets: the character budget (cards' own characters) and, when set, a budget in tokens
 * (each card's own text counted exactly, recall/tokens.ts). The top automatic card always gets in, and
 * the first one that would overflow either budget stops the list — later, smaller cards are not
 * squeezed in, so what goes in is a prefix of the order; the cards after it are left out as `budget`
 * or `budget_tokens`, whichever stopped it (characters are weighed first). A budget of 0 sends the
 * declared half alone. A card marked `ignore_budget` is chosen without counting.
 * Then a surface's cap on its whole output (`maxContextChars`, framing and markers included, measured
 * on the block render.ts will produce): cards are dropped from the end until it fits; a lone card still
 * too long is kept and cut, so the top card always gets in here too.
 * In index mode the same rules weigh each card's line of the index instead (index-block.ts).
 */
import type { Markers } from "../../inject/index.ts";
import {
  type Chosen,
  chosen,
  countsAgainstBudget,
  leftOut,
  type Selected,
  type Selection,
} from "../selection.ts";
import type { TokenBudget } from "../tokens.ts";
import type { IndexIds } from "../types.ts";
import { fitIndex } from "./index-block.ts";
import { frameBlock } from "./render.ts";

export interface BudgetLimits {
  /** Characters of cards (of index lines, in index mode). */
  budget: number;
  /** A budget in tokens besides the characters (`tokenBudget` in tokens.ts); unset = none. */
  tokens?: TokenBudget;
  maxContextChars?: number;
  framing: string;
  markers?: Markers;
  /** Index mode: the cards are weighed as lines of an index under these ids. */
  index?: IndexIds;
  /** Tiers are in use: in index mode, the stable block's cards are chosen as they are. */
  tiers?: boolean;
}

export function budget(selection: Selection, limits: BudgetLimits): Selected[] {
  if (limits.index) return fitIndex(selection, { ...limits, index: limits.index });
  const fitted = fitBudget(selection, limits.budget, limits.tokens);
  return limits.maxContextChars === undefined ? fitted : fitCap(fitted, limits.maxContextChars, limits);
}

function fitBudget(selection: Selection, budget: number, tokens: TokenBudget | undefined): Selected[] {
  let chars = 0;
  let spent = 0;
  let counted = 0;
  // A budget of 0 (either one): the declared half alone.
  let stop: "budget" | "budget_tokens" | undefined =
    budget <= 0 ? "budget" : tokens && tokens.budget <= 0 ? "budget_tokens" : undefined;
  return selection.map((entry) => {
    if (entry.verdict !== "fired") return entry;
    // The declared half (seed 004: always-on cards and those asked for) is never counted.
    if (!countsAgainstBudget(entry)) return chosen(entry);
    if (stop !== undefined) return leftOut(entry, stop);
    const size = entry.chars ?? 0;
    const cost = tokens ? tokens.count(entry.text ?? "") : 0;
    if (counted > 0) {
      if (chars + size > budget) stop = "budget";
      else if (tokens && spent + cost > tokens.budget) stop = "budget_tokens";
      if (stop !== undefined) return leftOut(entry, stop);
    }
    counted++;
    chars += size;
    spent += cost;
    // Said, so `try` and `explain` do not call a card of 30,000 characters "in budget" (of 800).
    const over = size > budget || (tokens !== undefined && cost > tokens.budget);
    return chosen(entry, over ? { overBudget: true } : {});
  });
}

/** Claude Code's hook context cap, as `fitContext` in the hook applied it before it moved here. */
function fitCap(selection: Selected[], cap: number, limits: BudgetLimits): Selected[] {
  const picked = selection.filter((e): e is Chosen => e.verdict === "chosen");
  const size = (texts: string[]) => {
    const block = frameBlock(texts, limits.framing, limits.markers);
    return (block.wrapped ?? block.text).length;
  };
  const textsOf = (count: number) => picked.slice(0, count).map((e) => e.text);
  let kept = picked.length;
  while (kept > 1 && size(textsOf(kept)) > cap) kept--;
  // The room for a cut card's text: what is left beside the framing, the markers and the "…".
  const cutTo = kept === 1 && size(textsOf(1)) > cap ? cap - (size(["x…"]) - 1) : undefined;
  const dropped = new Set(picked.slice(kept).map((e) => e.id));
  return selection.map((entry) => {
    if (entry.verdict !== "chosen") return entry;
    if (dropped.has(entry.id)) return leftOut(entry, "surface_cap");
    if (cutTo !== undefined && entry === picked[0]) return { ...entry, cutTo };
    return entry;
  });
}
