/**
 * The sizes a turn record keeps (README "What it costs"), in characters of prompt text: the prompt as
 * sent, how much of it the previous turn's request sent too (what a prefix cache could read, had no
 * block of this turn gone in earlier), and the same two for the original tool's strip-and-reinject, where every earlier block is
 * gone and this turn's blocks sit in front of the newest message. The provider's own token count of
 * the request turns characters into tokens later (state/stats.ts). Pure, and an estimate by design:
 * it reads text only (an image costs tokens but no characters here).
 */

import { type ChatView, type Edit, GAP } from "./_chat.ts";

export interface TurnSizes {
  promptChars: number;
  sharedChars: number;
  counterfactual: { promptChars: number; cachedChars: number };
}

export interface SizeInput {
  view: ChatView;
  target: number;
  /** Blocks replayed from earlier turns. */
  replayed: readonly Edit[];
  /** Blocks added this turn. */
  added: readonly Edit[];
}

/** The newest user message before `target`: where the previous turn's request ended; -1 for none. */
export function previousTarget(view: ChatView, target: number): number {
  for (let i = target - 1; i >= 0; i--) if (view.messages[i]!.role === "user") return i;
  return -1;
}

/**
 * Whether a block added now lands before content the previous turn's request already had, which
 * breaks the provider's prefix cache there.
 */
export function isEarly(edit: Pick<Edit, "anchor" | "place">, previous: number): boolean {
  if (previous === -1) return false;
  if (edit.place === "system" || edit.place === "system_start") return true;
  return edit.place === "after" ? edit.anchor < previous : edit.anchor <= previous;
}

export function turnSizes(input: SizeInput): TurnSizes {
  const { view, target, replayed, added } = input;
  const size = (edits: readonly Edit[]) => edits.reduce((n, e) => n + e.text.length + GAP.length, 0);
  const system = view.system.length;
  const previous = previousTarget(view, target);
  let messages = 0;
  let before = system; // the system text and the messages before `previous`
  for (let i = 0; i < view.messages.length; i++) {
    if (i < previous) before += view.messages[i]!.text.length;
    messages += view.messages[i]!.text.length;
  }
  const promptChars = system + messages + size(replayed) + size(added);
  const counterfactual = {
    promptChars: system + messages + size(added),
    cachedChars: previous === -1 ? 0 : before,
  };
  if (previous === -1) return { promptChars, sharedChars: 0, counterfactual };
  // What the previous turn's request sent: the system text and the messages through `previous`,
  // with the blocks replayed into them. A block added earlier than that now cuts into it, and a cache
  // read short of it is what stats blames on that block's cards.
  const sent = replayed.filter(
    (e) => e.place === "system" || e.place === "system_start" || e.anchor <= previous,
  );
  const shared = before + view.messages[previous]!.text.length + size(sent);
  return { promptChars, sharedChars: shared, counterfactual };
}
