/**
 * Stage: render, cards into the text the model sees. Byte-stable: the same card version always gives
 * the same bytes, because the gateway's replay re-inserts earlier blocks and a provider's prompt cache
 * only hits on identical prefixes. No clocks, no counters, no map iteration order in here.
 * `renderCards` runs before the budget (which weighs each card's rendered size) and records each
 * card's own placement; `renderBlocks` runs last, and in index mode puts one line per card in place of
 * the cards' text (index-block.ts). A card's body is read (through `Compiled`) only when it is
 * rendered. Macros (`{{char}}`, …: ../macros.ts) are expanded in the body and the see-also lines, never
 * in the heading, which is how a card already in a request is recognised. A card with nothing to say once its private sections and
 * comments are gone is left out (`empty`) rather than sent as a bare heading.
 */
import { cardHeading } from "../../card/heading.ts";
import { rulesOf } from "../../card/rules.ts";
import type { CardMeta, CardPlacement } from "../../card/types.ts";
import { DEFAULTS } from "../../defaults.ts";
import { type Markers, wrapBlock } from "../../inject/index.ts";
import type { Compiled } from "../_compiled.ts";
import { resolveRef } from "../_compiled.ts";
import { expandMacros, type Names } from "../macros.ts";
import type { Chosen, RenderedBlock, Selected, Selection, Tier } from "../selection.ts";
import { leftOut } from "../selection.ts";
import type { IndexIds } from "../types.ts";
import { indexBlock } from "./index-block.ts";
import { idOf } from "./notice.ts";

export const DEFAULT_FRAMING = DEFAULTS.framing;

export interface RenderInput {
  title: string;
  kind: string;
  /** The card's public text (private sections already removed). */
  text: string;
  /** "See also" lines for referenced cards that did not fire themselves. */
  seeAlso: { key: string; firstLine: string }[];
}

/** One card's block: a `###` title line with the kind, the public text, then one line per ref. */
export function renderCard(input: RenderInput): string {
  const lines = [cardHeading(input.title, input.kind)];
  const body = input.text.replace(/\r\n?/g, "\n").trim();
  if (body.length > 0) lines.push(body);
  for (const ref of input.seeAlso) {
    lines.push(ref.firstLine ? `see also: ${ref.key} — ${ref.firstLine}` : `see also: ${ref.key}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The whole injected text: the framing line, then the blocks separated by a blank line. */
export function renderContext(blocks: readonly string[], framing: string = DEFAULT_FRAMING): string {
  if (blocks.length === 0) return "";
  return framing + blocks.join("\n");
}

/**
 * The characters of a text as `[...text].length` counts them (a surrogate pair is one, a lone
 * surrogate one too), without making the array: the budget weighs every fired card by it.
 */
export function codePointsOf(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** First non-empty line of a text that is not a heading, for "see also" lines and previews. */
export function firstLine(text: string): string {
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.length > 0 && !line.startsWith("#")) return line;
  }
  return "";
}

/**
 * Every card that fired (in context or not) rendered with its "see also" lines: refs that resolve to
 * another card which did not fire itself and may be shown unasked (a `manual` or `never` card, or one
 * with `inject: false`, is never named there: its first line would leak into the prompt). A fired card
 * whose public text is empty is left out (`empty`): a bare heading tells the model nothing.
 */
export function renderCards(
  selection: Selection,
  compiled: Compiled,
  options: { names?: Names; conversation?: string } = {},
): Selected[] {
  const firedIds = new Set(selection.filter((e) => e.verdict !== "vetoed").map((e) => e.id));
  return selection.map((entry) => {
    // An earlier state comes rendered from its own text (earlier.ts).
    if (entry.verdict === "vetoed" || entry.earlier) return entry;
    const body = expandMacros(compiled.publicText(entry.card), options.names, options.conversation);
    const text = renderCard({
      title: entry.card.title,
      kind: entry.card.kind,
      text: body,
      seeAlso: seeAlsoOf(entry.card, compiled, firedIds, options),
    });
    const placement = rulesOf(entry.card).placement;
    const rendered = { ...entry, text, chars: codePointsOf(text), placement, edited: false };
    if (rendered.verdict !== "fired" || body.trim() !== "") return rendered;
    return leftOut(rendered, "empty");
  });
}

function seeAlsoOf(
  card: CardMeta,
  compiled: Compiled,
  firedIds: ReadonlySet<string>,
  macros: { names?: Names; conversation?: string },
): RenderInput["seeAlso"] {
  const self = idOf(card);
  return card.refs
    .map((name) => resolveRef(name, compiled))
    .filter((t): t is CardMeta => t !== undefined && !firedIds.has(idOf(t)) && idOf(t) !== self)
    .filter(mayBeShownUnasked)
    .map((t) => ({ key: t.key, firstLine: expandMacros(t.firstLine, macros.names, macros.conversation) }));
}

/** Only cards that go in when noticed (`automatic`) or every turn (`always`) may be named unasked. */
function mayBeShownUnasked(card: CardMeta): boolean {
  const { policy } = rulesOf(card);
  return card.inject && (policy === "automatic" || policy === "always");
}

/**
 * One placement's text: the framing and the cards (after the guide, for a stable block that has one),
 * and the same between our markers when given.
 */
export function frameBlock(
  cards: readonly string[],
  framing: string,
  markers?: Markers,
  guide = "",
): Pick<RenderedBlock, "text" | "wrapped"> {
  const context = renderContext(cards, framing);
  const text = guide === "" ? context : context === "" ? `${guide}\n` : `${guide}\n\n${context}`;
  return markers ? { text, wrapped: wrapBlock(text, markers) } : { text };
}

export interface BlockOptions {
  framing: string;
  markers?: Markers;
  tiers?: boolean;
  guide?: string;
  /** Index mode: the cards that would go with the newest message are one index block instead. */
  index?: IndexIds;
}

/**
 * The chosen cards as blocks. Without tiers, one volatile block (the hook's additionalContext, `try`).
 * With them (the gateway), the stable block first, then the volatile one, then one block per
 * placement in the order the placements first occur. Inside a block, cards with an insertion `order`
 * come first, lowest first (SillyTavern's order: higher numbers sit nearer the end of the prompt), ties
 * in budget order; cards without one follow in budget order, closest to the person's words first.
 * In index mode the stable block stays as it is and every other chosen card is a line of the index.
 */
export function renderBlocks(selection: Selection, options: BlockOptions): RenderedBlock[] {
  const chosen = selection.filter((e): e is Chosen => e.verdict === "chosen");
  if (options.index) {
    const inStable = (e: Chosen) => options.tiers === true && e.tier === "stable";
    const listed = chosen.filter((e) => !inStable(e));
    const stable = cardBlocks(chosen.filter(inStable), options);
    return listed.length === 0 ? stable : [...stable, indexBlock(listed, options.index, options.markers)];
  }
  return cardBlocks(chosen, options);
}

function cardBlocks(chosen: readonly Chosen[], options: BlockOptions): RenderedBlock[] {
  const guide = options.tiers ? (options.guide ?? "").trim() : "";
  if (chosen.length === 0 && guide === "") return [];
  const groups = new Map<string, { tier: Tier; at: CardPlacement | null; cards: Chosen[] }>();
  // The guide opens the stable block, which it makes on its own when no always-on card is chosen.
  if (guide !== "") groups.set(`stable\n${JSON.stringify(null)}`, { tier: "stable", at: null, cards: [] });
  for (const entry of chosen) {
    const tier = options.tiers ? entry.tier : "volatile";
    const at = tier === "placed" ? entry.placement : null;
    const key = `${tier}\n${JSON.stringify(at)}`;
    const group = groups.get(key) ?? { tier, at, cards: [] };
    group.cards.push(entry);
    groups.set(key, group);
  }
  const rank = { stable: 0, volatile: 1, placed: 2 } as const;
  return [...groups.values()]
    .sort((a, b) => rank[a.tier] - rank[b.tier])
    .map(({ tier, at, cards }) => {
      const earlier = cards.filter((c) => c.earlier);
      const ordered = [...earlier, ...insertionOrder(cards.filter((c) => !c.earlier))];
      const opening = tier === "stable" ? guide : "";
      return {
        tier,
        at,
        cards: ordered.map((c) => c.id),
        ...frameBlock(ordered.map(cardText), options.framing, options.markers, opening),
      };
    });
}

/** The line under an edited card's heading: the model is told the text replaces what it read before. */
export const EDITED_NOTE = "(edited since it was last sent: this version replaces the earlier one)";

function withEditedNote(text: string): string {
  const end = text.indexOf("\n");
  return end === -1
    ? `${text}\n${EDITED_NOTE}`
    : `${text.slice(0, end + 1)}${EDITED_NOTE}\n${text.slice(end + 1)}`;
}

/** Ordered cards ascending (stable), then the unordered ones as they came. */
function insertionOrder<T extends Pick<Selected, "card">>(cards: readonly T[]): T[] {
  const orderOf = (e: T) => rulesOf(e.card).order;
  const ordered = cards.filter((e) => orderOf(e) !== null);
  ordered.sort((a, b) => orderOf(a)! - orderOf(b)!);
  return [...ordered, ...cards.filter((e) => orderOf(e) === null)];
}

/**
 * A card's text in its block: an edited card with the note under its heading (the heading line stays
 * whole, which is how a card already in a request is recognised); cut to `cutTo` code units (whole
 * code points) and an ellipsis if set.
 */
function cardText(entry: Chosen): string {
  const text = entry.edited ? withEditedNote(entry.text) : entry.text;
  if (entry.cutTo === undefined) return text;
  let body = "";
  for (const ch of text) {
    if (body.length + ch.length > entry.cutTo) break;
    body += ch;
  }
  return `${body}…`;
}
