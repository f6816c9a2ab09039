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
 * Recall is asked with `INDEX_RECALL` (every card that fires is chosen: the text is never sent, so
 * its length is no cost), and `indexResult` then keeps the lines that fit the surface's budget,
 * counted in characters of lines (the first line always gets in; the first line that would overflow
 * stops the list, as recall's budget does), and its cap on the whole block, markers included.
 * Byte-stable for one recall: the same result and ids give the same bytes; the query id is made once
 * per recall (`newQueryId`), recorded with it, and replayed as part of the block's bytes.
 */
import { type Markers, wrapBlock } from "../inject/index.ts";
import type { RecallRecord } from "../state/index.ts";
import type { FiredCard, RecallOptions, RecallResult, RenderedBlock } from "./types.ts";

export interface IndexIds {
  /** The conversation as the surface keys it (the hook's `hook:<session_id>`, the gateway's id). */
  session: string;
  /** Unique per recall: `newQueryId()`. */
  query: string;
}

export interface IndexOptions extends IndexIds {
  /** Characters of card lines (the surface's `--budget`); the first line always gets in. */
  budget: number;
  /** A cap on the whole block in UTF-16 code units, markers included (the hook's context cap). */
  maxChars?: number;
  markers?: Markers;
}

/** What recall is asked in index mode, over the surface's own options: every card that fires is chosen. */
export const INDEX_RECALL = {
  budget: Number.MAX_SAFE_INTEGER,
  budgetTokens: undefined,
  maxContextChars: undefined,
} satisfies RecallOptions;

const MAX_WORDS = 8;
const MAX_WORD_CHARS = 60;

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
export function indexLine(card: Pick<FiredCard, "id" | "score" | "hits" | "via">): string {
  return `${card.score} | ${oneLine(card.id)} | ${wordsOf(card)}`;
}

/** The index text of `cards` (no markers): the header, then a line per card. */
export function renderIndex(
  ids: IndexIds,
  cards: readonly Pick<FiredCard, "id" | "score" | "hits" | "via">[],
) {
  return indexHeader(ids) + cards.map((c) => `${indexLine(c)}\n`).join("");
}

/**
 * The recall as index mode sends it: one volatile block (the index) in place of the cards' blocks; a
 * stable block (the gateway's boot block: the guide and the always-on cards) stays as it is, text
 * and all. `chosen` and `injected` are the stable block's cards and the cards listed; those the budget
 * or the cap cut are left out (`budget`, `surface_cap`) as recall's own budget would report them. No
 * card to list, no index block.
 */
export function indexResult(result: RecallResult, options: IndexOptions): RecallResult {
  const stable = result.blocks.filter((b) => b.tier === "stable");
  const inStable = new Set(stable.flatMap((b) => b.cards));
  const candidates = result.chosen.filter((c) => !inStable.has(c.id));
  const inBudget = budgetFit(candidates, options.budget);
  const listed = fitLines(candidates.slice(0, inBudget), options);
  const cut = new Map<string, FiredCard["reason"]>();
  for (const [i, c] of candidates.entries()) {
    if (i >= listed.length) cut.set(c.id, i < inBudget ? "surface_cap" : "budget");
  }
  const fired = result.fired.map((f): FiredCard => {
    const reason = cut.get(f.id);
    return reason ? { ...f, verdict: "left_out", reason, inBudget: false } : f;
  });
  const text = listed.length === 0 ? "" : renderIndex(options, listed);
  const block: RenderedBlock = {
    tier: "volatile",
    at: null,
    cards: listed.map((c) => c.id),
    text,
    ...(options.markers && { wrapped: wrapBlock(text, options.markers) }),
  };
  const chosen = [...result.chosen.filter((c) => inStable.has(c.id)), ...listed];
  const blocks = listed.length === 0 ? stable : [...stable, block];
  return {
    ...result,
    fired,
    chosen,
    blocks,
    injected: chosen.map((c) => c.key),
    injectedIds: chosen.map((c) => c.id),
    truncated: fired.filter((f) => f.verdict === "left_out").length,
    injectedChars:
      chosen.filter((c) => inStable.has(c.id)).reduce((n, c) => n + c.chars, 0) +
      listed.reduce((n, c) => n + [...indexLine(c)].length + 1, 0),
    context: blocks.map((b) => b.text).join("\n"),
    leftOut: fired.filter((f) => f.verdict === "left_out"),
  };
}

/** The cards an index result listed (not those of its stable block), in order. */
export function listedCards(result: Pick<RecallResult, "blocks">): string[] {
  return result.blocks.filter((b) => b.tier !== "stable").flatMap((b) => b.cards);
}

/** What state.db keeps of one index recall (`Store.recordRecall`); undefined when nothing was listed. */
export function recallRecordOf(
  result: Pick<RecallResult, "blocks">,
  ids: IndexIds,
  surface: RecallRecord["surface"],
  at: number,
): RecallRecord | undefined {
  const cards = listedCards(result);
  return cards.length === 0 ? undefined : { session: ids.session, query: ids.query, at, surface, cards };
}

/** How many of the first lines fit the character budget (at least one). */
function budgetFit(cards: readonly FiredCard[], budget: number): number {
  let chars = 0;
  let n = 0;
  for (const c of cards) {
    const size = [...indexLine(c)].length + 1;
    if (n > 0 && chars + size > budget) break;
    chars += size;
    n++;
  }
  return n;
}

/** The lines in budget that fit the cap on the whole block (dropped from the end, one kept). */
function fitLines(listed: readonly FiredCard[], options: IndexOptions): FiredCard[] {
  const { maxChars, markers } = options;
  if (maxChars === undefined) return [...listed];
  const size = (n: number) => {
    const text = renderIndex(options, listed.slice(0, n));
    return (markers ? wrapBlock(text, markers) : text).length;
  };
  let n = listed.length;
  while (n > 1 && size(n) > maxChars) n--;
  return listed.slice(0, n);
}

function wordsOf(card: Pick<FiredCard, "hits" | "via">): string {
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
