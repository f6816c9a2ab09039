/**
 * The question every surface asks (gateway request, hook, `try`, `/api/try`): which cards belong in
 * front of the model now, and as what exact text? These are the shapes of that question and answer.
 */

export type Role = "user" | "assistant" | "system";

/** One message of the conversation as plain text. Turns are passed oldest first; the last is current. */
export interface Turn {
  role: Role;
  text: string;
}

export interface RecallOptions {
  /** Characters of cards per injection (default 800). The top card always gets in. */
  budget?: number;
  /** Turns of history scanned (a turn = two messages; default 3; 0 = current message only). */
  scanDepth?: number;
  /** The line that introduces the cards (default "A memory surfaces:\n\n"). */
  framing?: string;
  /**
   * Card ids (`kind/key`) already in the model's context. They are reported as fired but set aside
   * before the budget is applied, and never injected again.
   */
  inContext?: ReadonlySet<string>;
  /**
   * Blocks of ours already in the request (another surface's, such as the hook's in a Claude Code
   * session that also goes through the gateway). A card whose rendered heading is in one of them is in
   * context too.
   */
  present?: readonly string[];
  /** Compute candidate keywords (costs a little; the gateway does not need them). Default true. */
  candidates?: boolean;
}

export interface FiredCard {
  /** `kind/key`: unique in the vault. */
  id: string;
  key: string;
  kind: string;
  title: string;
  score: number;
  priority: number;
  /** Matched terms, case-folded, in the order first seen. */
  hits: string[];
  /** The rendered block for this card, byte-stable for one version of the card. */
  text: string;
  /** Characters of `text`. */
  chars: number;
  inBudget: boolean;
  /** True when the caller said the card is already in context (never injected again). */
  inContext: boolean;
  /** The triggering message (the newest message that produced a hit), for the hit log. */
  trigger: string;
  /** `mtime:size` of the card file the text was rendered from. */
  version: string;
}

export interface Candidates {
  names: string[];
  places: string[];
  aliases: string[];
}

export interface RecallResult {
  /** Every card that fired, in order (score ↓, priority ↓, title). */
  fired: FiredCard[];
  /** Keys of the cards that would be injected, in order. */
  injected: string[];
  /** Ids of the same cards. */
  injectedIds: string[];
  /** Fired cards left out because the budget ran out. */
  truncated: number;
  injectedChars: number;
  /** The exact text that would be injected: framing + card blocks; "" when nothing is injected. */
  context: string;
  candidates: Candidates;
  /** Card files that could not be parsed and were skipped (they never stop the others). */
  broken: { path: string; error: string }[];
}
