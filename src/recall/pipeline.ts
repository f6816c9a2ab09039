/**
 * The recall pipeline: plain functions over one selection, in order. First which cards fire
 * (decide.ts: notice → policy → gate → timed → hold → groups → chance → reach, and the stages again
 * for what the reach found), then what goes in:
 *    9. select   set aside the cards in context (stages/select.ts)
 *   10. order    closest to the person's words first (stages/order.ts)
 *   11. render   each card's text and placement (stages/render.ts)
 *   12. resend   a card in context whose text changed since it was sent comes back (stages/select.ts),
 *                and a card whose text the request already holds is set aside (`quoted`, the same)
 *   13. place    each card's tier (stages/place.ts)
 *   14. budget   the character (and token) budget, then the surface's cap (stages/budget.ts)
 *   15. blocks   the chosen cards as blocks, or the index (stages/render.ts, stages/index-block.ts)
 * and last the timed memory to keep for the next turn (stages/timed.ts). Each stage returns a new
 * selection with its outcome for every card; nothing here caches, watches or writes (the VaultSource
 * does the first two, and writes only when told to). A dry run is just a call.
 */
import type { TierHint } from "../card/types.ts";
import { DEFAULTS } from "../defaults.ts";
import { type Candidates, findCandidates, type Segmenter } from "../match/index.ts";
import { brokenOf, type Compiled, resolveRef } from "./_compiled.ts";
import { decide } from "./decide.ts";
import { type EarlierCard, earlierEntries } from "./earlier.ts";
import { budget } from "./stages/budget.ts";
import { idOf } from "./stages/notice.ts";
import { order } from "./stages/order.ts";
import { place } from "./stages/place.ts";
import { cardById } from "./stages/policy.ts";
import { DEFAULT_FRAMING, renderBlocks, renderCards } from "./stages/render.ts";
import { quoted, resend, select } from "./stages/select.ts";
import { nextMemory } from "./stages/timed.ts";
import { tokenBudget } from "./tokens.ts";
import type { RecallOptions, RecallResult, Turn } from "./types.ts";

export const DEFAULT_BUDGET = DEFAULTS.budget;
export const DEFAULT_SCAN_DEPTH = DEFAULTS.scanDepth;

export interface PipelineOptions extends RecallOptions {
  /** Word segmentation for Chinese/Japanese, loaded on first need; absent = none. */
  segmenter?: () => Promise<Segmenter>;
  /** `earlier`'s cards as they were, read from history by the engine (earlier.ts). */
  earlierCards?: readonly EarlierCard[];
}

const NO_CANDIDATES: Candidates = { names: [], places: [], aliases: [] };

/**
 * The most of one message recall reads, in UTF-16 units: its first and last halves of this (128 Ki
 * characters each, some 30,000 words). A longer message is a paste (a log, a dump, a file), and the
 * person's own words sit before or after it; matching all of a megabyte takes tens of milliseconds,
 * which every other request of a gateway would wait for.
 */
export const MESSAGE_READ_MAX = 256 * 1024;

/** `text` when it is within the cap, else its start and end, joined by a line break. */
export function readOf(text: string): string {
  if (text.length <= MESSAGE_READ_MAX) return text;
  const half = MESSAGE_READ_MAX / 2;
  const head = isHigh(text.charCodeAt(half - 1)) ? half - 1 : half;
  const tail = isHigh(text.charCodeAt(text.length - half - 1)) ? half - 1 : half;
  return `${text.slice(0, head)}\n${text.slice(text.length - tail)}`;
}

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export async function recall(
  compiled: Compiled,
  given: readonly Turn[],
  options: PipelineOptions = {},
): Promise<RecallResult> {
  const turns = given.some((t) => t.text.length > MESSAGE_READ_MAX)
    ? given.map((t) => ({ ...t, text: readOf(t.text) }))
    : given;
  const framing = options.framing ?? DEFAULT_FRAMING;
  const { markers, maxContextChars, segmenter, index } = options;
  const scanDepth = options.scanDepth ?? DEFAULT_SCAN_DEPTH;
  const tiers = options.tiers === true;

  // The switch at `none`: nothing at all for this request, and the conversation's clock untouched.
  if (options.lore === "none") return nothing(compiled, options);
  const asked = askedIds(compiled, options);
  if (asked) options = { ...options, explicit: asked };
  const decided = await decide(compiled, turns, { scanDepth, segmenter }, options);
  const conversation = options.conversationId ?? turns[0]?.text ?? "";
  const macros = { names: options.names, conversation };
  // Earlier states lead: the door lists them first in their tier, as the writing app does.
  const earlier = earlierEntries(options.earlierCards ?? [], compiled, macros);
  const ordered = order(select([...earlier, ...decided.selection], options));
  const rendered = quoted(
    resend(renderCards(ordered, compiled, { names: options.names, conversation }), options.sent),
    options.quotedIn,
  );
  const placed = place(rendered, { stableSent: options.stableSent, hints: hintIds(compiled, options) });
  // An index is never weighed in tokens: the tokenizer is not even loaded.
  const tokens = index ? undefined : await tokenBudget(options.budgetTokens);
  // A budget in tokens given alone is the budget: the default in characters applies when neither is set.
  const budgetChars = options.budget ?? (tokens ? Number.POSITIVE_INFINITY : DEFAULT_BUDGET);
  const selection = budget(placed, {
    budget: budgetChars,
    tokens,
    maxContextChars,
    framing,
    markers,
    index,
    tiers,
  });
  const guide = options.stableSent ? undefined : options.guide;
  const blocks = renderBlocks(selection, { framing, markers, tiers, guide, index });
  // An earlier state has no clock of its own: only the cards as they are now start timed effects.
  const asNow = selection.filter((e) => e.earlier === undefined);
  const timed = nextMemory(asNow, decided.clock, (id) => cardById(compiled, id));

  const current = turns[turns.length - 1]?.text ?? "";
  const candidates = options.candidates === false ? NO_CANDIDATES : await candidatesOf(compiled, current);
  const broken = brokenOf(compiled).map((b) => ({ path: b.path, error: b.error }));
  const lore = options.lore ?? "auto";
  return { selection, blocks, ...(index && { index }), candidates, broken, timed, lore };
}

/** The answer of a recall with the lore switch at `none`: no card, no block, memory as it was. */
function nothing(compiled: Compiled, options: RecallOptions): RecallResult {
  const broken = brokenOf(compiled).map((b) => ({ path: b.path, error: b.error }));
  const timed = options.history?.memory ?? {};
  return { selection: [], blocks: [], candidates: NO_CANDIDATES, broken, timed, lore: "none" };
}

/** The request's tier hints by card id (`tierHints`, by name); undefined when none were given. */
function hintIds(compiled: Compiled, options: RecallOptions): Map<string, TierHint> | undefined {
  if (!options.tierHints || options.tierHints.length === 0) return undefined;
  const out = new Map<string, TierHint>();
  for (const { name, tier } of options.tierHints) {
    const card = resolveRef(name, compiled);
    if (card) out.set(idOf(card), tier);
  }
  return out;
}

/** The ids of the cards asked for by id or by name (`ask`); undefined when none were. */
function askedIds(compiled: Compiled, options: RecallOptions): ReadonlySet<string> | undefined {
  if (!options.ask || options.ask.length === 0) return options.explicit;
  const ids = new Set(options.explicit);
  for (const name of options.ask) {
    const card = resolveRef(name, compiled);
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

/**
 * Tier hints written in one line, `Name=stable, Other=volatile` (`try --tier`, the gateway's
 * `X-Lorecards-Tier`); `bad` holds each part that is not `name=stable` or `name=volatile`.
 */
export function tierHintsIn(line: string | null | undefined): {
  hints: { name: string; tier: TierHint }[];
  bad: string[];
} {
  const hints: { name: string; tier: TierHint }[] = [];
  const bad: string[] = [];
  for (const part of namesIn(line)) {
    const at = part.lastIndexOf("=");
    const name = part.slice(0, Math.max(0, at)).trim();
    const tier = part
      .slice(at + 1)
      .trim()
      .toLowerCase();
    if (at > 0 && name !== "" && (tier === "stable" || tier === "volatile")) hints.push({ name, tier });
    else bad.push(part);
  }
  return { hints, bad };
}

/** The names of `ask` that find no card, for a surface that refuses them (`try`, `/api/try`). */
export function unknownNames(compiled: Compiled, names: readonly string[]): string[] {
  return names.filter((name) => resolveRef(name, compiled) === undefined);
}

function candidatesOf(compiled: Compiled, sentence: string): Promise<Candidates> {
  const { matcher } = compiled.loaded;
  return findCandidates(sentence, {
    covered: (f) => matcher.containsTerm(f),
    extendsTitle: (f) => matcher.extendsTitle(f),
  });
}
