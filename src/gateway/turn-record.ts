/**
 * What one gateway turn did, for the context door and `lorecards stats` (docs "What it costs"): the
 * blocks it added (their tier, where, their cards, whether an edit moved the provider's cached
 * prefix), what it replayed, the cards recall left out, and the sizes of the prompt. Keeping it is
 * best effort: the pipeline never lets it cost a request its cards.
 */
import { leftOutCards, type RecallResult } from "../recall/index.ts";
import type { TurnRecord } from "../state/index.ts";
import { type Adapter, type ChatView, type Edit, isObject } from "./_chat.ts";
import type { SlottedBlock } from "./_slots.ts";
import { isEarly, previousTarget, turnSizes } from "./_turn-sizes.ts";
import type { ApiName } from "./protocols.ts";
import type { ReplayPlan } from "./replay.ts";

export interface TurnInput {
  adapter: Adapter<ApiName>;
  body: unknown;
  view: ChatView;
  plan: ReplayPlan;
  conversation: string;
  /** The blocks made this turn, and the edits they became (same order). */
  made: readonly SlottedBlock[];
  added: readonly Edit[];
  result: RecallResult | null;
  now: number;
}

export function turnRecordOf(input: TurnInput): TurnRecord {
  const { body, view, plan, made, added, result } = input;
  const previous = previousTarget(view, plan.target);
  const model = isObject(body) && typeof body.model === "string" ? body.model.slice(0, 200) : undefined;
  return {
    conversation: input.conversation,
    turn: plan.turn,
    at: input.now,
    surface: "gateway",
    api: input.adapter.name,
    ...(model && { model }),
    blocks: made.map((b, i) => ({
      tier: b.tier,
      where: b.slot.where,
      text: b.text,
      cards: b.cards.map((c) => c.id),
      ...(b.edited.length > 0 && { edited: b.edited }),
      ...(isEarly(added[i]!, previous) && { early: true }),
    })),
    replayedChars: plan.edits.reduce((n, e) => n + e.text.length, 0),
    leftOut: (result ? leftOutCards(result) : []).map((c) => ({ id: c.id, reason: c.reason })),
    ...(result && result.lore !== "auto" && { lore: result.lore }),
    ...(result?.books && { books: result.books }),
    ...turnSizes({ view, target: plan.target, replayed: plan.edits, added }),
  };
}
