/**
 * The recall pipeline: plain functions over one selection, in order — notice (the window's hits) →
 * gate (vetoes) → select (set aside what is in context) → order → render each card → budget (and the
 * surface's cap) → place → render the blocks. Each stage returns a new selection with its verdict on
 * every card; nothing here caches, watches or writes (the VaultSource does the first two, and writes
 * only when told to). A dry run is just a call.
 */
import type { CardMeta, KindsConfig } from "../card/types.ts";
import { DEFAULTS } from "../defaults.ts";
import { findCandidates, fold, type Segmenter } from "../match/index.ts";
import type { Loaded } from "./_compiled.ts";
import { budget } from "./budget.ts";
import { gate } from "./gate.ts";
import { notice } from "./notice.ts";
import { order } from "./order.ts";
import { place } from "./place.ts";
import { DEFAULT_FRAMING, renderBlocks, renderCards } from "./render.ts";
import { select } from "./select.ts";
import type {
  Candidates,
  FiredCard,
  RecallOptions,
  RecallResult,
  RenderedBlock,
  Selected,
  Selection,
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

  const noticed = await notice(compiled, messages, { scanDepth, segmenter });
  const gated = await gate(noticed.selection, noticed.scan);
  const rendered = renderCards(order(select(gated, options)), compiled);
  const limits = { budget: options.budget ?? DEFAULT_BUDGET, maxContextChars, framing, markers };
  const selection = place(budget(rendered, limits));
  const blocks = renderBlocks(selection, { framing, markers });

  const candidates =
    options.candidates === false
      ? NO_CANDIDATES
      : await candidatesOf(compiled, messages[messages.length - 1] ?? "", segmenter);
  return resultOf(selection, blocks, compiled, candidates);
}

function resultOf(
  selection: Selection,
  blocks: RenderedBlock[],
  compiled: Compiled,
  candidates: Candidates,
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
  };
}

function candidatesOf(
  compiled: Compiled,
  sentence: string,
  segmenter: (() => Promise<Segmenter>) | undefined,
): Promise<Candidates> {
  const { loaded } = compiled;
  loaded.titles ??= loaded.cards.all().map((c) => fold(c.title));
  return findCandidates(sentence, {
    covered: (f) => loaded.matcher.containsTerm(f),
    titles: loaded.titles,
    segmenter,
  });
}
