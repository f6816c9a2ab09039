/**
 * Stage 7, render: cards into the text the model sees. Byte-stable: the same card version always gives
 * the same bytes, because the gateway's replay re-inserts earlier blocks and a provider's prompt cache
 * only hits on identical prefixes. No clocks, no counters, no map iteration order in here.
 * `renderCards` runs before the budget (which weighs each card's rendered size); `renderBlocks` runs
 * last, one block per placement. A card's body is read (through `Compiled`) only when it is rendered.
 */
import type { CardMeta } from "../card/types.ts";
import { DEFAULTS } from "../defaults.ts";
import { type Markers, wrapBlock } from "../inject/index.ts";
import { resolveRef } from "./_compiled.ts";
import { idOf } from "./notice.ts";
import type { Compiled } from "./pipeline.ts";
import type { Placement, RenderedBlock, Selected, Selection } from "./types.ts";

export const DEFAULT_FRAMING = DEFAULTS.framing;

export interface RenderInput {
  title: string;
  kind: string;
  /** The card's public text (private sections already removed). */
  text: string;
  /** "See also" lines for referenced cards that did not fire themselves. */
  seeAlso: { key: string; firstLine: string }[];
}

/** The line a card's block opens with; also how a card already in a request is recognised. */
export function cardHeading(title: string, kind: string): string {
  return `### ${title} [${kind}]`;
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
 * another card which did not fire itself.
 */
export function renderCards(selection: Selection, compiled: Compiled): Selected[] {
  const firedIds = new Set(selection.filter((e) => e.verdict !== "vetoed").map((e) => e.id));
  return selection.map((entry) => {
    if (entry.verdict === "vetoed") return entry;
    const text = renderOne(entry.card, compiled, firedIds);
    return { ...entry, text, chars: [...text].length };
  });
}

function renderOne(card: CardMeta, compiled: Compiled, firedIds: ReadonlySet<string>): string {
  const self = idOf(card);
  const seeAlso = card.refs
    .map((name) => resolveRef(name, compiled.loaded, compiled.kinds))
    .filter((t): t is CardMeta => t !== undefined && !firedIds.has(idOf(t)) && idOf(t) !== self)
    .map((t) => ({ key: t.key, firstLine: t.firstLine }));
  return renderCard({ title: card.title, kind: card.kind, text: compiled.publicText(card), seeAlso });
}

/** One placement's text: the framing and the cards, and the same between our markers when given. */
export function frameBlock(
  cards: readonly string[],
  framing: string,
  markers?: Markers,
): Pick<RenderedBlock, "text" | "wrapped"> {
  const text = renderContext(cards, framing);
  return markers ? { text, wrapped: wrapBlock(text, markers) } : { text };
}

/** The chosen cards as one block per placement, placements in the order of their first card. */
export function renderBlocks(
  selection: Selection,
  options: { framing: string; markers?: Markers },
): RenderedBlock[] {
  const groups = new Map<Placement, Selected[]>();
  for (const entry of selection) {
    if (entry.verdict !== "chosen") continue;
    const placement = entry.placement ?? "default";
    const group = groups.get(placement);
    if (group) group.push(entry);
    else groups.set(placement, [entry]);
  }
  return [...groups].map(([placement, cards]) => ({
    placement,
    cards: cards.map((c) => c.id),
    ...frameBlock(cards.map(cardText), options.framing, options.markers),
  }));
}

/** A card's text in its block: cut to `cutTo` code units (whole code points) and an ellipsis if set. */
function cardText(entry: Selected): string {
  const text = entry.text ?? "";
  if (entry.cutTo === undefined) return text;
  let body = "";
  for (const ch of text) {
    if (body.length + ch.length > entry.cutTo) break;
    body += ch;
  }
  return `${body}…`;
}
