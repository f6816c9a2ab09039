/**
 * Index mode (`--inject index`, README "Index mode and adoption"): instead of the cards' text, one
 * compact block that lists them, so an agent sees what exists and opens only what it needs with MCP
 * `read_card`, naming the block's session and query ids (an adoption). The block is exactly:
 *
 *   Memory index (session: <session>, query: <query>). Open a card with read_card(name, session, query).
 *   score | card | words that fired it
 *   <score> | <kind/key> | <word>, <word>, …
 *
 * one line per card in recall's order (closest to the person's words first). A card that came in
 * without words says how instead: `(always on)`, `(still sticky)`, `(asked for)`, `(named in another
 * card)`. Ids, names and words are kept on their line: line breaks, tabs and `|` become spaces.
 *
 * It is a choice of recall's own budget and render stages (`RecallOptions.index`): the text is never
 * sent, so its length is no cost; the budget counts characters of lines (the first line always gets
 * in; the first line that would overflow stops the list, as for cards), no token budget applies, and
 * the surface's cap is on the whole block, markers included (lines dropped from the end, one kept).
 * A stable block (the gateway's boot block: the guide and the always-on cards) keeps its text.
 * Byte-stable for one recall: the same selection and ids give the same bytes; the query id is made
 * once per recall (`newQueryId`), recorded with it, and replayed as part of the block's bytes.
 */
import { type Markers, wrapBlock } from "../../inject/index.ts";
import type { RecallRecord } from "../../state/index.ts";
import {
  chosen,
  leftOut,
  type RenderedBlock,
  type Seen,
  type Selected,
  type Selection,
} from "../selection.ts";
import type { IndexIds } from "../types.ts";

const MAX_WORDS = 8;
const MAX_WORD_CHARS = 60;

type Line = Pick<Seen, "id" | "score" | "hits" | "via">;

/** A fresh query id: `q` and 12 hex digits. */
export function newQueryId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `q${Buffer.from(bytes).toString("hex")}`;
}

/** The two lines every index opens with. */
export function indexHeader(ids: IndexIds): string {
  return (
    `Memory index (session: ${oneLine(ids.session)}, query: ${oneLine(ids.query)}). ` +
    "Open a card with read_card(name, session, query).\nscore | card | words that fired it\n"
  );
}

/** One card's line, without its newline. */
export function indexLine(card: Line): string {
  return `${card.score} | ${oneLine(card.id)} | ${wordsOf(card)}`;
}

/** What one card's line costs of the budget: its characters and its newline. */
export function lineChars(card: Line): number {
  return [...indexLine(card)].length + 1;
}

/** The index text of `cards` (no markers): the header, then a line per card. */
export function renderIndex(ids: IndexIds, cards: readonly Line[]): string {
  return indexHeader(ids) + cards.map((c) => `${indexLine(c)}\n`).join("");
}

/** The index block of the listed cards: volatile, where the surface puts cards with the newest message. */
export function indexBlock(listed: readonly Line[], ids: IndexIds, markers?: Markers): RenderedBlock {
  const text = renderIndex(ids, listed);
  return {
    tier: "volatile",
    at: null,
    cards: listed.map((c) => c.id),
    text,
    ...(markers && { wrapped: wrapBlock(text, markers) }),
  };
}

export interface IndexLimits {
  budget: number;
  maxContextChars?: number;
  markers?: Markers;
  index: IndexIds;
  tiers?: boolean;
}

/**
 * The budget stage in index mode: the stable block's cards (with tiers) are chosen as they are; the
 * others are listed while their lines fit the budget (`budget` for the rest), then while the block
 * fits the cap (`surface_cap` for the lines dropped from the end).
 */
export function fitIndex(selection: Selection, limits: IndexLimits): Selected[] {
  const candidates = selection.filter((e) => e.verdict === "fired" && !inStable(e, limits));
  let chars = 0;
  let inBudget = 0;
  for (const c of candidates) {
    const size = lineChars(c);
    if (inBudget > 0 && chars + size > limits.budget) break;
    chars += size;
    inBudget++;
  }
  const listed = fitLines(candidates.slice(0, inBudget), limits);
  const cut = new Map<string, "budget" | "surface_cap">();
  for (const [i, c] of candidates.entries()) {
    if (i >= listed) cut.set(c.id, i < inBudget ? "surface_cap" : "budget");
  }
  return selection.map((entry) => {
    if (entry.verdict !== "fired") return entry;
    const reason = cut.get(entry.id);
    return reason ? leftOut(entry, reason) : chosen(entry);
  });
}

function inStable(entry: Selected, limits: Pick<IndexLimits, "tiers">): boolean {
  return limits.tiers === true && entry.verdict === "fired" && entry.tier === "stable";
}

/** How many of the lines in budget fit the cap on the whole block (dropped from the end, one kept). */
function fitLines(lines: readonly Line[], limits: IndexLimits): number {
  const { maxContextChars: cap, markers } = limits;
  if (cap === undefined) return lines.length;
  const size = (n: number) => {
    const text = renderIndex(limits.index, lines.slice(0, n));
    return (markers ? wrapBlock(text, markers) : text).length;
  };
  let n = lines.length;
  while (n > 1 && size(n) > cap) n--;
  return n;
}

/** The cards an index result listed (not those of its stable block), in order. */
export function listedCards(result: { blocks: readonly RenderedBlock[] }): string[] {
  return result.blocks.filter((b) => b.tier !== "stable").flatMap((b) => b.cards);
}

/** What state.db keeps of one index recall (`Store.recordRecall`); undefined when nothing was listed. */
export function recallRecordOf(
  result: { blocks: readonly RenderedBlock[]; index?: IndexIds },
  surface: RecallRecord["surface"],
  at: number,
): RecallRecord | undefined {
  const cards = listedCards(result);
  if (result.index === undefined || cards.length === 0) return undefined;
  return { session: result.index.session, query: result.index.query, at, surface, cards };
}

function wordsOf(card: Pick<Seen, "hits" | "via">): string {
  if (card.hits.length === 0) {
    return {
      named: "(no words)",
      always: "(always on)",
      sticky: "(still sticky)",
      explicit: "(asked for)",
      reached: "(named in another card)",
    }[card.via];
  }
  const words = card.hits.slice(0, MAX_WORDS).map((w) => oneLine([...w].slice(0, MAX_WORD_CHARS).join("")));
  return words.join(", ") + (card.hits.length > MAX_WORDS ? ", …" : "");
}

/** Text kept on one line of the index: line breaks, tabs and `|` become single spaces. */
function oneLine(text: string): string {
  return text.replace(/[\s|]+/g, " ").trim();
}
