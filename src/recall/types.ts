/**
 * The question every surface asks (gateway request, hook, `try`, `/api/try`): which cards belong in
 * front of the model now, and as what exact text? These are the shapes of that question and answer,
 * and of the one selection the stages of recall (notice → gate → select → order → budget → place →
 * render) pass along, each recording its verdict on every card.
 */
import type { CardMeta, CardPlacement, Policy } from "../card/types.ts";
import type { Markers } from "../inject/index.ts";

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
  /** Our markers: each rendered block is then also given wrapped in them (`RenderedBlock.wrapped`). */
  markers?: Markers;
  /**
   * A surface's cap on its whole output, framing and markers (when given) included, counted in UTF-16
   * code units as JavaScript's `length` does (the hook: Claude Code's context limit). Cards that would
   * cross it are left out from the end (`surface_cap`); a lone card still too long is cut and ends in
   * "…". Unset: no cap beyond the budget.
   */
  maxContextChars?: number;
  /**
   * Seed of the reproducible draws (probability, inclusion groups). The gateway passes conversation id
   * and turn, the hook session and turn; unset = derived from the turns, so the same input gives the
   * same answer twice.
   */
  seed?: string;
  /** `one-hop` (default): fired cards' own text is scanned once for more cards; `named`: only the person's words. */
  reach?: "named" | "one-hop";
  /** A budget in tokens (exact counts, tokenizer loaded only when set), besides the character budget. */
  budgetTokens?: number;
  /** Names for `{{char}}` / `{{user}}` in injected text; a macro with no name stays as written. */
  names?: { char?: string; user?: string };
  /**
   * The conversation's identity (gateway: its conversation id; hook: the session; `try`: `--seed`), for
   * the draws made once per conversation: `{{random}}`, `{{pick}}`, `{{roll}}` in a card's text.
   * Unset: the conversation's first message, which stays the same while the conversation grows.
   */
  conversationId?: string;
  /** Card ids the person explicitly asked for: `manual` cards fire only this way. */
  explicit?: ReadonlySet<string>;
  /**
   * Cards asked for by name (a key, title or alias, as `read` finds them; `try --with`, `/api/try`'s
   * `with`, the gateway's `X-Lorecards-With` header): added to `explicit`. A name that finds no card
   * is passed over (`unknownNames` lets a surface refuse it first).
   */
  ask?: readonly string[];
  /**
   * The conversation so far, for timed effects and history decorators (sticky, cooldown, delay,
   * `@@activate_only_after`, …). Absent: no memory (a first turn). The result's `timed` is the memory
   * to keep for the next turn.
   */
  history?: ConversationHistory;
  /**
   * What the conversation last sent of each card in context: id → `contentHash` of its rendered text.
   * A card set aside as in context whose text has changed since comes back, marked `edited`, to be
   * sent again (README "Stable and volatile").
   */
  sent?: ReadonlyMap<string, string>;
  /**
   * Blocks per tier and placement (`RenderedBlock.tier`): the gateway's stable block, volatile block
   * and placed blocks. Unset: one volatile block with every chosen card (the hook, `try`).
   */
  tiers?: boolean;
  /**
   * With tiers: the conversation's stable block is already in place (its bytes never change), so an
   * `always` card that is not in it goes with the newest message.
   */
  stableSent?: boolean;
  /**
   * With tiers, while the stable block is still to be made: the guide (README "The boot block"), the
   * text that opens it, before the always-on cards. A guide and no always-on card is a stable block too.
   */
  guide?: string;
}

/** What one card's timed effects remember, in message counts of the conversation. */
export interface TimedEntry {
  /** Message count when it last fired (was chosen). */
  last: number;
  /** It stays in while the message count is below this (sticky / keep_activate_after_match: Infinity is stored as -1). */
  stickyUntil?: number;
  /** It may not fire while the message count is below this. */
  cooldownUntil?: number;
  /** `@@dont_activate_after_match`: fired once, never again. */
  spent?: boolean;
}

/** Per card id (`kind/key`). */
export type TimedMemory = Readonly<Record<string, TimedEntry>>;

export interface ConversationHistory {
  /** Messages in the conversation, the current one included (the clock of timed effects). */
  messages: number;
  /** Assistant messages so far (for `@@activate_only_after` / `@@activate_only_every`). */
  assistantMessages: number;
  memory: TimedMemory;
}

/**
 * What recall decided about a card, and why. `fired` is the state between the stages (hit and not
 * vetoed, nothing decided yet); every card ends as one of the others.
 *   vetoed     gate: `not_automatic` (`inject: false`) or `secondary` (its all/any/not words)
 *   in_context select: `recorded` (the caller's `inContext` ids) or `present` (in a block of ours
 *              already in the request); never injected again
 *   chosen     budget: goes in front of the model
 *   left_out   budget: `budget` / `budget_tokens` (a budget ran out) or `surface_cap` (`maxContextChars`);
 *              render: `empty` (no public text)
 */
export type Verdict = "fired" | "vetoed" | "in_context" | "chosen" | "left_out";
/**
 * vetoed: `not_automatic` (manual / `inject: false`), `never`, `disabled_by_decorator`, `secondary`
 * (all/any/not/not_all words, `@@additional_keys`, `@@exclude_keys`), `probability` (the seeded draw),
 * `group` (another card of its inclusion group won), `delay`, `cooldown`, `timing`
 * (`@@activate_only_after` / `_every`, `@@dont_activate_after_match`), `recursion_only`
 * (`delay_until_recursion` and not reached); left_out: `budget`, `budget_tokens`, `surface_cap`,
 * `empty` (render: nothing public to say once private sections and comments are gone).
 */
export type Reason =
  | "not_automatic"
  | "never"
  | "secondary"
  | "probability"
  | "group"
  | "delay"
  | "cooldown"
  | "timing"
  | "recursion_only"
  | "recorded"
  | "present"
  | "budget"
  | "budget_tokens"
  | "surface_cap"
  | "empty";

/** How a card came into the selection: its words were noticed, it is always on, still sticky, asked for, or reached through another card's text. */
export type Via = "named" | "always" | "sticky" | "explicit" | "reached";

/** Where a card asks to go (null position = the surface's default place); reported, for the surfaces to use. */
export type Placement = CardPlacement;

/**
 * Which part of what a surface sends a chosen card belongs to (README "Stable and volatile"):
 *   stable    an `always` card: sent in one place that never moves, the same bytes every turn
 *   volatile  a card new this turn, or edited since it was last sent: with the newest message
 *   placed    a card with a placement of its own (`position`, `depth`, `role`): where its author asked
 */
export type Tier = "stable" | "volatile" | "placed";

/** One card of the selection: what the window showed, and each stage's verdict on it. */
export interface Selected {
  /** `kind/key`: unique in the vault. */
  id: string;
  card: CardMeta;
  /** Matched terms, case-folded, in the order first seen (newest message first). */
  hits: string[];
  score: number;
  /** Window positions (0 = current message, 1 = the one before, …) of the messages that hit it. */
  found: ReadonlySet<number>;
  /** The triggering message (the newest message that produced a hit). */
  trigger: string;
  verdict: Verdict;
  reason?: Reason;
  /** How it came in. */
  via: Via;
  /** Its context policy (card/rules.ts `rulesOf`). */
  policy: Policy;
  /** The card's rendered text, byte-stable for one version of the card (set for every unvetoed card). */
  text?: string;
  /** Characters (code points) of `text`. */
  chars?: number;
  /** Chosen cards: where the surface puts it. */
  placement?: Placement;
  /** A chosen card longer than the surface cap: UTF-16 code units of `text` kept before "…". */
  cutTo?: number;
  /** Chosen cards: the part of what is sent it belongs to. */
  tier?: Tier;
  /** In context, but its text changed since the conversation last sent it: sent again, marked so. */
  edited?: boolean;
  // What a stage knew when it decided, for the context door (recall/explain.ts):
  /** Vetoed `secondary`: the rule that stopped it and its words (decide.ts). */
  blockedBy?: SecondaryBlock;
  /** Vetoed `delay` / `cooldown` / `timing`: the rule and the clock (timed.ts). */
  stoppedBy?: TimedStop;
  /** Vetoed `group`: the group it lost, to whom and how (groups.ts). */
  lostTo?: GroupLoss;
  /** Its probability draw, when it had one (chance.ts): it fires when `draw` < `chance` (null: chance 0). */
  roll?: { draw: number | null; chance: number };
  /** Reached: the id of the card whose text named it (decide.ts). */
  reachedFrom?: string;
}

/**
 * The secondary rule that stopped a card: `all` (`words`: the one missing), `any` (none of `words`
 * there), `not` (the one there), `not_all` (all of `words` there), `additional_keys` (none of the
 * line's `words` there), `exclude_keys` (the one there).
 */
export interface SecondaryBlock {
  rule: "all" | "any" | "not" | "not_all" | "additional_keys" | "exclude_keys";
  words: string[];
}

/**
 * The clock that stopped a card. `now` is the conversation's message count (delay, cooldown) or its
 * assistant messages (`activate_only_after` / `_every`); it may fire once `now` reaches `until`.
 */
export interface TimedStop {
  rule: "delay" | "cooldown" | "activate_only_after" | "activate_only_every" | "dont_activate_after_match";
  now: number;
  until?: number;
}

/**
 * How a card lost its inclusion group: `taken` (a card of an earlier pass filled it), `kept` (a
 * still-sticky card or one asked for by id holds it), `scoring` (group scoring: fewer terms matched),
 * `override` (an overriding member won), `draw` (the weighted draw chose `winner`).
 */
export interface GroupLoss {
  group: string;
  winner?: string;
  how: "taken" | "kept" | "scoring" | "override" | "draw";
}

/** The cards of one recall, in order (after the order stage), each with its verdict. */
export type Selection = readonly Selected[];

/** The text for one placement: framing + the chosen cards' blocks, in order. */
export interface RenderedBlock {
  tier: Tier;
  /** A placed block's placement (every card in it shares it); null for stable and volatile blocks. */
  at: CardPlacement | null;
  /** Ids of its cards, in order. */
  cards: string[];
  text: string;
  /** `text` between our markers, when recall was given them: exactly what the surface inserts. */
  wrapped?: string;
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
  verdict: Verdict;
  reason?: Reason;
  /** Derived: `verdict === "chosen"` (the `in_budget` of `try --json`). */
  inBudget: boolean;
  /** Derived: `verdict === "in_context"` (never injected again). */
  inContext: boolean;
  /** The triggering message (the newest message that produced a hit), for the hit log. */
  trigger: string;
  /** `mtime:size` of the card file the text was rendered from. */
  version: string;
  via: Via;
  policy: Policy;
  /** Where it goes (chosen cards; the card's own placement otherwise). */
  placement: Placement;
  /** Chosen cards: stable, volatile or placed. */
  tier?: Tier;
  /** Sent again because its text changed since the conversation last sent it. */
  edited: boolean;
}

export interface Candidates {
  names: string[];
  places: string[];
  aliases: string[];
}

export interface RecallResult {
  /** Every card the window hit, vetoed ones included, in order, with its verdict. */
  selection: Selection;
  /** Every card that fired (not vetoed), in order (score ↓, priority ↓, title). */
  fired: FiredCard[];
  /** The cards that go in, in order: verdict `chosen`. */
  chosen: FiredCard[];
  /** The rendered text, one block per placement in use; none when no card is chosen. */
  blocks: RenderedBlock[];
  /** Keys of the cards that would be injected, in order. */
  injected: string[];
  /** Ids of the same cards. */
  injectedIds: string[];
  /** Fired cards left out because the budget (or the surface cap) ran out. */
  truncated: number;
  injectedChars: number;
  /** The blocks' text joined: framing + card blocks; "" when nothing is injected. */
  context: string;
  candidates: Candidates;
  /** Card files that could not be parsed and were skipped (they never stop the others). */
  broken: { path: string; error: string }[];
  /** Fired cards left out by a budget or the surface cap, with why (`try --json` `left_out`). */
  leftOut: FiredCard[];
  /** The timed-effects memory to keep for the next turn (see RecallOptions.history). */
  timed: TimedMemory;
}
