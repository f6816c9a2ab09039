/**
 * The selection: one record per card recall looked at, in order, each in exactly one outcome. What
 * the window showed of a card (`Seen`) is the same whatever happens to it; the outcome says what
 * recall decided and carries only what that decision has:
 *   fired      between the stages: hit and not stopped, nothing decided yet
 *   vetoed     a stage stopped it, and the record says which rule (`reason`, and `stop` where the
 *              rule has more to say: the secondary word, the clock, the inclusion group)
 *   in_context set aside: already in front of the model (`recorded` by the caller, or `present` in a
 *              block of ours in the request); never sent again
 *   chosen     goes in front of the model: its tier, placement, text and version
 *   left_out   a budget, the surface's cap, or nothing public to say
 * Every other view of a recall (the fired cards, the injected keys, the context text, …) is derived
 * from the selection by the functions of views.ts, never stored beside it.
 */

import { rulesOf } from "../card/rules.ts";
import type { CardMeta, CardPlacement, Policy, TierHint } from "../card/types.ts";
import type { WordStop } from "../match/index.ts";
import { cardVersion } from "./version.ts";

/** How a card came into the selection: its words were noticed, it is always on, still sticky, asked for, or reached through another card's text. */
export type Via = "named" | "always" | "sticky" | "explicit" | "reached";

/** Where a card asks to go (null position = the surface's default place). */
export type Placement = CardPlacement;

/**
 * Which part of what a surface sends a chosen card belongs to (README "Stable and volatile"):
 *   stable    an `always` card: sent in one place that never moves, the same bytes every turn
 *   volatile  a card new this turn, or edited since it was last sent: with the newest message
 *   placed    a card with a placement of its own (`position`, `depth`, `role`): where its author asked
 */
export type Tier = "stable" | "volatile" | "placed";

/** A probability draw (chance.ts): the card fires when `draw` < `chance` (null: chance 0, never drawn). */
export interface Roll {
  draw: number | null;
  chance: number;
}

/**
 * The declared half of the lore (the writing app's "what you named": sent whole, every turn): the
 * always-on cards and the cards asked for by id or by name. Everything else came in because it was
 * noticed (its words, still sticky from them, reached through another card's text): the automatic half.
 */
export function isDeclared(entry: Pick<Seen, "via">): boolean {
  return entry.via === "always" || entry.via === "explicit";
}

/** Whether the budget counts a chosen card: the automatic half, unless the card says to ignore it. */
export function countsAgainstBudget(entry: Pick<Seen, "via" | "card">): boolean {
  return !isDeclared(entry) && !rulesOf(entry.card).ignoreBudget;
}

/** What the window showed of one card, and how it came in. */
export interface Seen {
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
  via: Via;
  /** Its context policy (card/rules.ts `rulesOf`). */
  policy: Policy;
  /** Its probability draw, when it had one (chance.ts), fired or not. */
  roll?: Roll;
  /** Reached: the id of the card whose text named it (decide.ts). */
  reachedFrom?: string;
  /** The block it asked to start in, by its `tier:` or the request's (stages/place.ts), kept or not. */
  hint?: TierHint;
  /** An earlier state of the card, asked for beside it (earlier.ts): its history version and time. */
  earlier?: { version: number; at: number };
}

/** A card's text as render made it: byte-stable for one version of the card. */
export interface Rendered {
  text: string;
  /** Characters (code points) of `text`. */
  chars: number;
  /** The card's own placement (card rules), recorded by the place stage. */
  placement: Placement;
  /** In context, but its text changed since the conversation last sent it: sent again, marked so. */
  edited: boolean;
}

/** Between the stages: rendered once render has run, placed (and given its tier) once place has. */
export interface Fired extends Seen, Partial<Rendered> {
  verdict: "fired";
  reason?: undefined;
  /** The part of what is sent it would go in (place.ts). */
  tier?: Tier;
}

/** The secondary rule that stopped a card, and its words (match/ `WordStop`). */
export type { WordStop };

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

/**
 * The rule that stopped a card:
 *   not_automatic  its policy is `manual` (or `inject: false`) and it was not asked for   (policy)
 *   never          its policy is `never`                                                   (policy)
 *   secondary      its all/any/not/not_all words, `@@additional_keys` / `@@exclude_keys`   (gate)
 *   delay, cooldown, timing   the clock: delay, cooldown, the history decorators          (timed)
 *   recursion_only `delay_until_recursion`, and nothing reached it                         (hold)
 *   reach_named    reached through another card's text, but reach is `named`: not sent    (reach)
 *   lore_declared  noticed, but the lore switch is `declared`: not sent                   (policy)
 *   group          another card of its inclusion group won                                 (groups)
 *   probability    its seeded draw                                                         (chance)
 */
export type Veto =
  | { reason: "not_automatic" | "never" | "recursion_only" | "reach_named" | "lore_declared" }
  | { reason: "secondary"; stop: WordStop }
  | { reason: "delay" | "cooldown" | "timing"; stop: TimedStop }
  | { reason: "group"; stop: GroupLoss }
  | { reason: "probability"; roll: Roll };

export type Vetoed = Seen & { verdict: "vetoed" } & Veto;

/** Already in front of the model; rendered once render has run (always, in a result). */
export interface InContext extends Seen, Partial<Rendered> {
  verdict: "in_context";
  reason: "recorded" | "present" | "quoted";
}

export interface Chosen extends Seen, Rendered {
  verdict: "chosen";
  reason?: undefined;
  tier: Tier;
  /** The content hash of `text` (version.ts): what a conversation records it sent. */
  version: string;
  /** A card longer than the surface cap: UTF-16 code units of `text` kept before "…". */
  cutTo?: number;
  /** The top automatic card, longer than the budget alone: it goes in whole all the same (budget.ts). */
  overBudget?: true;
}

export interface LeftOut extends Seen, Rendered {
  verdict: "left_out";
  /** `budget` / `budget_tokens` (a budget ran out), `surface_cap` (the surface's cap), `empty` (render: nothing public). */
  reason: "budget" | "budget_tokens" | "surface_cap" | "empty";
}

export type Selected = Fired | Vetoed | InContext | Chosen | LeftOut;
export type Verdict = Selected["verdict"];
export type Reason = NonNullable<Selected["reason"]>;

/** The cards of one recall, in order (after the order stage), each with its outcome. */
export type Selection = readonly Selected[];

/** The text for one placement: framing + the chosen cards' blocks, in order (or the index). */
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

/** The rendered part of an entry, as render left it (a card not rendered is empty text, its rules' place). */
function renderedOf(entry: Seen & Partial<Rendered>): Rendered {
  return {
    text: entry.text ?? "",
    chars: entry.chars ?? 0,
    placement: entry.placement ?? rulesOf(entry.card).placement,
    edited: entry.edited === true,
  };
}

/** A fired entry chosen by the budget: its tier (place.ts) kept, its version taken from its text. */
export function chosen(entry: Fired, extra: { cutTo?: number; overBudget?: true } = {}): Chosen {
  const { verdict: _v, reason: _r, tier, ...seen } = entry;
  const rendered = renderedOf(entry);
  const version = cardVersion(rendered.text);
  return { ...seen, ...rendered, verdict: "chosen", tier: tier ?? "volatile", version, ...extra };
}

/** An entry left out, with why: a fired one (the budget, render) or a chosen one the cap dropped. */
export function leftOut(entry: Fired | Chosen, reason: LeftOut["reason"]): LeftOut {
  const { verdict: _v, reason: _r, tier: _t, ...rest } = entry;
  const { version: _version, cutTo: _cut, ...seen } = rest as typeof rest & Partial<Chosen>;
  return { ...seen, ...renderedOf(entry), verdict: "left_out", reason };
}

/** A vetoed entry: the rest of the record kept, the rule that stopped it added. */
export function vetoed(entry: Seen, veto: Veto): Vetoed {
  return { ...withoutOutcome(entry), verdict: "vetoed", ...veto } as Vetoed;
}

/** The record without the fields of an earlier outcome. */
function withoutOutcome(entry: Seen): Seen {
  const { verdict: _v, reason: _r, ...seen } = entry as Seen & { verdict?: unknown; reason?: unknown };
  return seen;
}
