/**
 * The question every surface asks (gateway request, hook, `try`, `/api/try`): which cards belong in
 * front of the model now, and as what exact text? These are the shapes of that question and of its
 * answer; the selection the answer holds, one outcome per card, is selection.ts.
 */

import type { TierHint } from "../card/types.ts";
import type { LoreSwitch } from "../defaults.ts";
import type { Markers } from "../inject/index.ts";
import type { Candidates } from "../match/index.ts";
import type { BookAsk } from "./books.ts";
import type { EarlierAsk } from "./earlier.ts";
import type { RenderedBlock, Selection } from "./selection.ts";

export type Role = "user" | "assistant" | "system";

/** One message of the conversation as plain text. Turns are passed oldest first; the last is current. */
export interface Turn {
  role: Role;
  text: string;
}

export interface RecallOptions {
  /**
   * Characters of the automatic half per injection (default 800, none when only `budgetTokens` is set;
   * 0 = the declared half alone). The top automatic card always gets in.
   */
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
  /**
   * The request's own texts (its system prompt and messages, our blocks taken out). A card whose public
   * text is already in one of them (the same book active in SillyTavern's World Info as well) is in
   * context too: it is set aside as `quoted`, never sent a second time.
   */
  quotedIn?: readonly string[];
  /**
   * Which books to read (recall/books.ts): books named, else the conversation's system prompt for its
   * character. The engine chooses (index.ts); absent: the vault's own cards and its unbound books.
   */
  books?: BookAsk;
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
  /**
   * The lore switch (defaults.ts `LORE_SWITCHES`): `auto` (default) both halves; `declared` only the
   * declared half (selection.ts `isDeclared`: always-on cards and cards asked for), what was noticed
   * shown vetoed `lore_declared`, nothing reached or still sticky; `none` nothing at all, not even
   * the guide, and the timed memory left as it was.
   */
  lore?: LoreSwitch;
  /**
   * A budget in tokens of the automatic half (exact counts, tokenizer loaded only when set). Given
   * alone it is the budget; with `budget` too, both apply.
   */
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
   * Which block a card asks to start in, by name (a key, title or alias, as `ask` finds them: the
   * gateway's `X-Lorecards-Tier`, `try --tier`): it wins over the card's own `tier:` field
   * (stages/place.ts). A name that finds no card is passed over.
   */
  tierHints?: readonly { name: string; tier: TierHint }[];
  /**
   * Cards as they were at an earlier history version or time, each placed beside the card as it is
   * now (earlier.ts; the gateway's `X-Lorecards-Earlier`, `explain --earlier`): declared, never
   * counted against the budget, riding the stable tier. A name or version not there is `not_found`.
   */
  earlier?: readonly EarlierAsk[];
  /**
   * Where a surface that fails open hears of an `earlier` card or version that is not there (the
   * gateway): it is then passed over instead of refused with `not_found`.
   */
  warn?: (line: string) => void;
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
  /**
   * Index mode (`--inject index`, README "Index mode and adoption"): the cards that would go with the
   * newest message are sent as one line each under these ids (stages/index-block.ts), the budget and
   * the surface cap counting those lines; a stable block keeps its cards' text.
   */
  index?: IndexIds;
}

/** The ids an index is rendered under: an agent names them when it opens a card (an adoption). */
export interface IndexIds {
  /** The conversation as the surface keys it (the hook's `hook:<session_id>`, the gateway's id). */
  session: string;
  /** Unique per recall: `newQueryId()`. */
  query: string;
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

export interface RecallResult {
  /** Every card the window hit (or that came in unnamed), vetoed ones included, in order, each with its outcome. */
  selection: Selection;
  /** The rendered text, one block per placement in use; none when no card is chosen. */
  blocks: RenderedBlock[];
  /** Index mode: the ids the index was rendered under (`RecallOptions.index`). */
  index?: IndexIds;
  candidates: Candidates;
  /** Card files that could not be parsed and were skipped (they never stop the others). */
  broken: { path: string; error: string }[];
  /** The timed-effects memory to keep for the next turn (see RecallOptions.history). */
  timed: TimedMemory;
  /** The lore switch in force (the caller's, else settings.yaml's, else `auto`), for the door to say. */
  lore: LoreSwitch;
  /**
   * The books read (recall/books.ts), when they are more than the vault's own cards (`main`) or not it:
   * absent for a vault with no books, as before books.
   */
  books?: string[];
}
