/**
 * The context door (README "The context door: `lorecards explain`"): why each card is, or is not, in
 * front of the model, from one recall's selection. One entry and one line per card that went in, was
 * reached, is already in context, was left out or nearly fired (a hit, then a veto): which words
 * matched and where, the policy, where it goes and in which tier, the budget's decision and the
 * dedupe state. A card asked about by name that did not fire at all gets the reason too: no term of it
 * in its window (and, when one was said earlier, how far back), or that it is disabled.
 *
 * Pure: a RecallResult and the turns it read in, the explanation out. Everything a stage knew when it
 * decided was kept on the selection by the stage itself (the secondary word, the clock, the group's
 * winner, the draw); nothing here runs recall again. The shape is the JSON of `explain --json` and
 * `POST /api/explain`, snake_case like `try --json`; the words of each line are in _lines.ts.
 */
import { rulesOf } from "../card/rules.ts";
import type { CardMeta, CardPlacement, Policy, TierHint } from "../card/types.ts";
import type { LoreSwitch } from "../defaults.ts";
import { cardTerms, fold, windowSize } from "../match/index.ts";
import {
  type Compiled,
  charsOf,
  countsAgainstBudget,
  DEFAULT_BUDGET,
  DEFAULT_SCAN_DEPTH,
  findNamed,
  type GroupLoss,
  idOf,
  injectedChars,
  injectedKeys,
  isEdited,
  placementOf,
  type Reason,
  type RecallResult,
  type Selected,
  type Tier,
  type TimedStop,
  type Turn,
  tierFor,
  type Verdict,
  type Via,
  type WordStop,
} from "../recall/index.ts";
import { lineOf } from "./_lines.ts";

export interface ExplainInput {
  /** The turns the recall read, oldest first; the last is the current message. */
  turns: readonly Turn[];
  /** Cards asked about by name (`--card`): explained even when no term of theirs was hit. */
  asked?: readonly CardMeta[];
  /** The recall's scan depth in turns (default DEFAULT_SCAN_DEPTH), to say how far a window reached. */
  scanDepth?: number;
  /** The recall's character budget (default DEFAULT_BUDGET), to say what it was. */
  budget?: number;
  /** The conversation's ledger: card id → the turn it last went in, to say since when it is in context. */
  ledger?: ReadonlyMap<string, number>;
}

/** Why a card is where it is: only the fields that apply. */
export interface Why {
  secondary?: WordStop;
  clock?: { rule: TimedStop["rule"]; now: number; until: number | null };
  group?: { group: string; winner: string | null; how: GroupLoss["how"] };
  roll?: { draw: number | null; chance: number };
  reached_from?: string;
  /** Left out by a budget or the cap: the chosen cards before it that took the room. */
  budget?: { limit: number | null; spent: number; taken_by: { id: string; chars: number }[] };
  in_context?: { how: "recorded" | "present" | "quoted"; since_turn: number | null };
  /** Not noticed: the messages its window reads, and the nearest message that holds one of its terms. */
  window?: { messages: number; nearest: { term: string; back: number } | null };
  edited?: boolean;
  /** Chosen though longer than the budget alone: the top automatic card goes in whole all the same. */
  over_budget?: boolean;
  /** The block the card asked to start in (its `tier:` or the request's), and whether it went there. */
  tier_hint?: { asked: TierHint; kept: boolean };
}

export interface ExplainedCard {
  id: string;
  key: string;
  kind: string;
  title: string;
  /** Recall's verdict; `not_noticed` for a card asked about that no term of its window hit. */
  verdict: Verdict | "not_noticed";
  reason: Reason | "no_term" | "disabled" | null;
  via: Via | null;
  policy: Policy;
  /** Named with `--card` (`card` / `cards` in the API). */
  asked: boolean;
  /** An earlier state placed beside the card (`--earlier`): its history version and time (ISO 8601). */
  earlier: { version: number; at: string } | null;
  /** Each matched term and the window positions it was found at (0 = the current message). */
  hits: { term: string; messages: number[] }[];
  placement: CardPlacement;
  /** Chosen cards: their tier; the others: the tier they would go in. */
  tier: Tier;
  chars: number | null;
  why: Why;
  /** The same, in one line of words. */
  line: string;
}

export interface Explanation {
  /** The lore switch in force: `auto`, `declared` or `none` (RecallOptions.lore). */
  lore: LoreSwitch;
  /** The books read, when the vault has books (docs/BOOKS.md). */
  books?: string[];
  cards: ExplainedCard[];
  /** The blocks as recall rendered them: exactly the text the cards go in as. */
  blocks: { tier: Tier; at: CardPlacement | null; cards: string[]; text: string }[];
  injected: string[];
  injected_chars: number;
}

export function explain(result: RecallResult, input: ExplainInput): Explanation {
  const asked = new Set((input.asked ?? []).map(idOf));
  const titles = new Map(result.selection.map((e) => [e.id, e.card.title]));
  const cards = result.selection.map((entry) => {
    const card = explained(entry, result.selection, input, asked.has(entry.id));
    return { ...card, line: lineOf(card, titles) };
  });
  const seen = new Set(cards.map((c) => c.id));
  for (const card of input.asked ?? []) {
    if (seen.has(idOf(card))) continue;
    seen.add(idOf(card));
    const absent = notNoticed(card, input);
    cards.push({ ...absent, line: lineOf(absent, titles) });
  }
  return {
    lore: result.lore,
    ...(result.books && { books: result.books }),
    cards,
    blocks: result.blocks.map((b) => ({ tier: b.tier, at: b.at, cards: b.cards, text: b.text })),
    injected: injectedKeys(result),
    injected_chars: injectedChars(result),
  };
}

type Unlined = Omit<ExplainedCard, "line">;

function explained(
  entry: Selected,
  selection: readonly Selected[],
  input: ExplainInput,
  asked: boolean,
): Unlined {
  const placement = placementOf(entry);
  const hint = entry.hint ?? rulesOf(entry.card).tierHint ?? undefined;
  const tier =
    entry.verdict === "chosen" ? entry.tier : tierFor(entry.policy, placement, isEdited(entry), false, hint);
  const why = whyOf(entry, selection, input);
  if (hint && !entry.earlier) why.tier_hint = { asked: hint, kept: tier === hint };
  return {
    ...named(entry.card),
    // An earlier state has an id of its own (`kind/key@version`).
    id: entry.id,
    verdict: entry.verdict,
    reason: entry.reason ?? null,
    via: entry.via,
    policy: entry.policy,
    asked,
    earlier: entry.earlier
      ? { version: entry.earlier.version, at: new Date(entry.earlier.at).toISOString() }
      : null,
    hits: hitsOf(entry, input.turns),
    placement,
    tier,
    chars: charsOf(entry) ?? null,
    why,
  };
}

function named(card: CardMeta) {
  const book = card.book === undefined ? {} : { book: card.book };
  return { id: idOf(card), key: card.key, kind: card.kind, ...book, title: card.title };
}

function whyOf(entry: Selected, selection: readonly Selected[], input: ExplainInput): Why {
  const why: Why = {};
  if (entry.verdict === "vetoed") {
    if (entry.reason === "secondary") why.secondary = entry.stop;
    else if (entry.reason === "group") why.group = { ...entry.stop, winner: entry.stop.winner ?? null };
    else if (entry.reason === "delay" || entry.reason === "cooldown" || entry.reason === "timing")
      why.clock = { ...entry.stop, until: entry.stop.until ?? null };
  }
  if (entry.roll) why.roll = entry.roll;
  if (entry.reachedFrom) why.reached_from = entry.reachedFrom;
  if (isEdited(entry)) why.edited = true;
  if (entry.verdict === "chosen" && entry.overBudget) why.over_budget = true;
  if (entry.verdict === "in_context") {
    const how = entry.reason;
    why.in_context = { how, since_turn: how === "recorded" ? (input.ledger?.get(entry.id) ?? null) : null };
  }
  if (entry.verdict === "left_out" && entry.reason !== "empty") why.budget = roomOf(entry, selection, input);
  return why;
}

/** The chosen cards before a left-out one that the budget counted: what took its room. */
function roomOf(entry: Selected, selection: readonly Selected[], input: ExplainInput): Why["budget"] {
  const before = selection.slice(0, selection.indexOf(entry));
  const counted = before.filter((e) => e.verdict === "chosen" && countsAgainstBudget(e));
  const taken = counted.map((e) => ({ id: e.id, chars: charsOf(e) ?? 0 }));
  const limit = entry.reason === "budget" ? (input.budget ?? DEFAULT_BUDGET) : null;
  return { limit, spent: taken.reduce((n, t) => n + t.chars, 0), taken_by: taken };
}

/** Each hit term with the window positions of the messages it is in (of those that hit the card). */
function hitsOf(entry: Selected, turns: readonly Turn[]): ExplainedCard["hits"] {
  const at = (m: number) => fold(turns[turns.length - 1 - m]?.text ?? "");
  const found = [...entry.found].sort((a, b) => a - b);
  return entry.hits.map((term) => {
    const messages = found.filter((m) => at(m).includes(term));
    return { term, messages: messages.length > 0 ? messages : found };
  });
}

/** A card asked about that no term of its window hit: disabled, or how near a term of it came. */
function notNoticed(card: CardMeta, input: ExplainInput): Unlined {
  const rules = rulesOf(card);
  const messages = windowSize(card, { scanDepth: input.scanDepth ?? DEFAULT_SCAN_DEPTH });
  return {
    ...named(card),
    verdict: "not_noticed",
    reason: card.enabled ? "no_term" : "disabled",
    via: null,
    policy: rules.policy,
    asked: true,
    earlier: null,
    hits: [],
    placement: rules.placement,
    tier: tierFor(rules.policy, rules.placement, false),
    chars: null,
    why: card.enabled ? { window: { messages, nearest: nearestTerm(card, input.turns) } } : {},
  };
}

/** The newest message holding one of the card's plain terms (as a substring), however far back. */
function nearestTerm(card: CardMeta, turns: readonly Turn[]): { term: string; back: number } | null {
  const terms = cardTerms(card);
  for (let back = 0; back < turns.length; back++) {
    const text = fold(turns[turns.length - 1 - back]!.text);
    const term = terms.find((t) => text.includes(t));
    if (term !== undefined) return { term, back };
  }
  return null;
}

/**
 * The cards named (a key, `kind/key` or title, as `read` and refs find them), disabled ones
 * included so the door can say so; `unknown` are the names that find none.
 */
export function cardsNamed(
  compiled: Compiled,
  names: readonly string[],
): { cards: CardMeta[]; unknown: string[] } {
  const cards: CardMeta[] = [];
  const unknown: string[] = [];
  for (const name of names) {
    const card = findNamed(name, compiled);
    if (card) cards.push(card);
    else unknown.push(name);
  }
  return { cards, unknown };
}
