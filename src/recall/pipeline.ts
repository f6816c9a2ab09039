/**
 * The recall pipeline: plain functions over one selection, in order. First which cards fire
 * (decide.ts: notice → policy → gate → timed → hold → groups → chance → reach, and the stages again
 * for what the reach found), then what goes in: select (set aside what is in context) → order →
 * render each card → resend what changed since it was sent → budget (and the surface's cap) → place
 * → render the blocks; last, the timed memory to keep for the next turn (timed.ts). Each stage returns a new selection with its verdict
 * on every card; nothing here caches, watches or writes (the VaultSource does the first two, and
 * writes only when told to). A dry run is just a call.
 */
import { rulesOf } from "../card/rules.ts";
import type { CardMeta, KindsConfig } from "../card/types.ts";
import { DEFAULTS } from "../defaults.ts";
import { findCandidates, type Segmenter } from "../match/index.ts";
import { type Loaded, resolveRef } from "./_compiled.ts";
import { budget } from "./budget.ts";
import { decide } from "./decide.ts";
import { idOf } from "./notice.ts";
import { order } from "./order.ts";
import { place } from "./place.ts";
import { cardById } from "./policy.ts";
import { DEFAULT_FRAMING, renderBlocks, renderCards } from "./render.ts";
import { resend, select } from "./select.ts";
import { nextMemory } from "./timed.ts";
import { tokenBudget } from "./tokens.ts";
import type {
  Candidates,
  FiredCard,
  RecallOptions,
  RecallResult,
  RenderedBlock,
  Selected,
  Selection,
  TimedMemory,
  Turn,
} from "./types.ts";

export const DEFAULT_BUDGET = DEFAULTS.budget;
export const DEFAULT_SCAN_DEPTH = DEFAULTS.scanDepth;

/** One vault version as recall reads it: the matcher and cards, and a card's public text on demand. */
export interface Compiled {
  readonly loaded: Loaded;
  readonly kinds: KindsConfig;
  /** The card's text without its private sections (read from disk, or a cache, by the source). */
  publicText(card: CardMeta): string;
}

export interface PipelineOptions extends RecallOptions {
  /** Word segmentation for Chinese/Japanese, loaded on first need; absent = none. */
  segmenter?: () => Promise<Segmenter>;
}

const NO_CANDIDATES: Candidates = { names: [], places: [], aliases: [] };

export async function recall(
  compiled: Compiled,
  turns: readonly Turn[],
  options: PipelineOptions = {},
): Promise<RecallResult> {
  const messages = turns.map((t) => t.text);
  const framing = options.framing ?? DEFAULT_FRAMING;
  const { markers, maxContextChars, segmenter } = options;
  const scanDepth = options.scanDepth ?? DEFAULT_SCAN_DEPTH;

  const asked = askedIds(compiled, options);
  if (asked) options = { ...options, explicit: asked };
  const decided = await decide(compiled, turns, { scanDepth, segmenter }, options);
  const rendered = resend(
    renderCards(order(select(decided.selection, options)), compiled, {
      names: options.names,
      conversation: options.conversationId ?? turns[0]?.text ?? "",
    }),
    options.sent,
  );
  const tokens = await tokenBudget(options.budgetTokens);
  const limits = { budget: options.budget ?? DEFAULT_BUDGET, tokens, maxContextChars, framing, markers };
  const selection = place(budget(rendered, limits), { stableSent: options.stableSent });
  const blocks = renderBlocks(selection, {
    framing,
    markers,
    tiers: options.tiers,
    guide: options.stableSent ? undefined : options.guide,
  });
  const timed = nextMemory(selection, decided.clock, (id) => cardById(compiled, id));

  const candidates =
    options.candidates === false
      ? NO_CANDIDATES
      : await candidatesOf(compiled, messages[messages.length - 1] ?? "", segmenter);
  return resultOf(selection, blocks, compiled, candidates, timed);
}

/** The ids of the cards asked for by id or by name (`ask`); undefined when none were. */
function askedIds(compiled: Compiled, options: RecallOptions): ReadonlySet<string> | undefined {
  if (!options.ask || options.ask.length === 0) return options.explicit;
  const ids = new Set(options.explicit);
  for (const name of options.ask) {
    const card = resolveRef(name, compiled.loaded, compiled.kinds);
    if (card) ids.add(idOf(card));
  }
  return ids;
}

/** Card names written in one line, comma-separated (`try --with`, the gateway's `X-Lorecards-With`). */
export function namesIn(line: string | null | undefined): string[] {
  return (line ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
}

/** The names of `ask` that find no card, for a surface that refuses them (`try`, `/api/try`). */
export function unknownNames(compiled: Compiled, names: readonly string[]): string[] {
  return names.filter((name) => resolveRef(name, compiled.loaded, compiled.kinds) === undefined);
}

function resultOf(
  selection: Selection,
  blocks: RenderedBlock[],
  compiled: Compiled,
  candidates: Candidates,
  timed: TimedMemory,
): RecallResult {
  const fired = selection.filter((e) => e.verdict !== "vetoed").map(firedCard);
  const chosen = fired.filter((c) => c.verdict === "chosen");
  return {
    selection,
    fired,
    chosen,
    blocks,
    injected: chosen.map((c) => c.key),
    injectedIds: chosen.map((c) => c.id),
    truncated: fired.filter((c) => c.verdict === "left_out").length,
    injectedChars: chosen.reduce((n, c) => n + c.chars, 0),
    context: blocks.map((b) => b.text).join("\n"),
    broken: compiled.loaded.index.broken.map((b) => ({ path: b.path, error: b.error })),
    candidates,
    leftOut: fired.filter((c) => c.verdict === "left_out"),
    timed,
  };
}

/** The explanation record of one card, as surfaces and `try --json` read it. */
function firedCard(entry: Selected): FiredCard {
  const { card } = entry;
  return {
    id: entry.id,
    key: card.key,
    kind: card.kind,
    title: card.title,
    score: entry.score,
    priority: card.priority,
    hits: entry.hits,
    text: entry.text ?? "",
    chars: entry.chars ?? 0,
    verdict: entry.verdict,
    ...(entry.reason && { reason: entry.reason }),
    inBudget: entry.verdict === "chosen",
    inContext: entry.verdict === "in_context",
    trigger: entry.trigger,
    version: `${card.mtime}:${card.size}`,
    via: entry.via,
    policy: entry.policy,
    placement: entry.placement ?? rulesOf(card).placement,
    ...(entry.tier && { tier: entry.tier }),
    edited: entry.edited === true,
  };
}

function candidatesOf(
  compiled: Compiled,
  sentence: string,
  segmenter: (() => Promise<Segmenter>) | undefined,
): Promise<Candidates> {
  const { matcher } = compiled.loaded;
  return findCandidates(sentence, {
    covered: (f) => matcher.containsTerm(f),
    extendsTitle: (f) => matcher.extendsTitle(f),
    segmenter,
  });
}
