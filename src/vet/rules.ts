/**
 * The checks every writer runs before a card is written (README "Write checks"): MCP `write_card`, the
 * HTTP API's create and update (the editor), and imports. Two kinds of result:
 *
 * - a refusal, when the write would put a card over a priority cap (`conflict`: the vault's other
 *   cards hold the places) or make a card that can never fire (`invalid_input`). A write is refused only
 *   for what it brings in: an update that leaves a card where it already was (in a band over its cap,
 *   unable to fire) goes through with a warning, so an over-full or broken card can still be fixed;
 * - warnings about the card's words: none besides the title, two keywords typed as one ("Alice or
 *   Allie"), a term that fires on ordinary text (the same heuristics as `check`, vet/terms.ts), a
 *   term that is another card's title.
 *
 * An import never refuses on these (a book is the person's own data, all or nothing): `checkImport`
 * turns everything into warnings. Pure: the caller hands in the card as it would be written, the card
 * as it is, the vault's other cards and the caps (settings.yaml `priority_caps`, vault/settings.ts).
 */
import { formatCount, rulesOf } from "../card/index.ts";
import type { CardMeta } from "../card/types.ts";
import { type ErrorCode, LoreError } from "../errors.ts";
import { cardPatterns, cardTerms, fold } from "../match/index.ts";
import type { PriorityCap } from "../vault/index.ts";
import { firesOnWords, genericTerm, wordProblems } from "./terms.ts";

/** At most 5 cards at priority 2 or above and 15 at priority 1: the two levels above the default 0. */
export const DEFAULT_PRIORITY_CAPS: readonly PriorityCap[] = Object.freeze([
  { priority: 2, cap: 5 },
  { priority: 1, cap: 15 },
]);

export type WriteCode =
  | "priority_cap"
  | "never_fires"
  | "no_keywords"
  | "joined_terms"
  | "generic_keyword"
  | "another_title";

export interface WriteWarning {
  code: WriteCode;
  detail: string;
  /** The term the warning is about, as written (folded for generic_keyword, as `check` reports it). */
  term?: string;
}

export interface WriteVerdict {
  /** Why the write may not happen; empty when it may. */
  refusals: WriteWarning[];
  warnings: WriteWarning[];
}

export interface WriteContext {
  /** The card as it is now, for an update; null or absent for a new card. */
  before?: CardMeta | null;
  /** Every other card of the vault (the card being written is left out by its kind and key). */
  others: readonly CardMeta[];
  /** Highest priority first or not: they are sorted here. Absent = DEFAULT_PRIORITY_CAPS. */
  caps?: readonly PriorityCap[];
}

/** One card written by an import and what is worth fixing about it; `card` null for a cap. */
export interface ImportWarning extends WriteWarning {
  card: string | null;
}

const idOf = (c: Pick<CardMeta, "kind" | "key">) => `${c.kind}/${c.key}`;

/** What stops `next` from being written, and what to tell the writer about its words. */
export function checkWrite(next: CardMeta, ctx: WriteContext): WriteVerdict {
  const id = idOf(next);
  const others = ctx.others.filter((c) => idOf(c) !== id);
  const before = ctx.before ?? null;
  const refusals: WriteWarning[] = [];
  const warnings: WriteWarning[] = [];
  const was = new Set(before && firesOnWords(before) ? neverFires(before).map((w) => w.detail) : []);
  for (const w of neverFires(next)) (was.has(w.detail) ? warnings : refusals).push(w);
  const cap = capProblem(next, before, others, sortedCaps(ctx.caps));
  if (cap !== null) refusals.push(cap);
  warnings.push(...wordWarnings(next, titleIndex(others)), ...wordOfAnother(next, others));
  return { refusals, warnings };
}

/**
 * A title that is another card's keyword or alias: both fire on it. Said of the card being written,
 * since the other is not (an import's pairs are said once, by the card whose keyword it is).
 */
function wordOfAnother(card: CardMeta, others: readonly CardMeta[]): WriteWarning[] {
  if (!firesOnWords(card)) return [];
  const title = card.title.trim();
  const folded = fold(title);
  const ids = others
    .filter(
      (c) =>
        fold(c.title.trim()) !== folded &&
        [...c.keywords, ...c.aliases].some((w) => fold(w.trim()) === folded),
    )
    .map(idOf);
  if (ids.length === 0) return [];
  const detail = `"${title}" is a keyword or alias of ${ids.join(", ")}: both fire on it and compete for the budget`;
  return [{ code: "another_title", term: title, detail }];
}

/** The error a refused write throws: the card's problem first (`invalid_input`), else the cap's. */
export function refusalError(
  card: Pick<CardMeta, "kind" | "key">,
  refusals: readonly WriteWarning[],
): LoreError {
  const code: ErrorCode = refusals.some((r) => r.code === "never_fires") ? "invalid_input" : "conflict";
  const details = refusals.map((r) => r.detail).join("; ");
  return new LoreError(code, `${idOf(card)} was not written: ${details}`);
}

/** Throw refusalError when the verdict refuses; otherwise the warnings to hand back. */
export function allowedWrite(card: Pick<CardMeta, "kind" | "key">, verdict: WriteVerdict): WriteWarning[] {
  if (verdict.refusals.length > 0) throw refusalError(card, verdict.refusals);
  return verdict.warnings;
}

/**
 * The warnings of an import: per written card, everything checkWrite would say (a card that can never
 * fire included), and per capped priority the import left over its cap, the cards holding it. `all`
 * is the vault after the import, the written cards included.
 */
export function checkImport(
  written: readonly CardMeta[],
  all: readonly CardMeta[],
  caps?: readonly PriorityCap[],
): ImportWarning[] {
  const titles = titleIndex(all);
  const out: ImportWarning[] = [];
  for (const card of written) {
    const id = idOf(card);
    for (const w of [...neverFires(card), ...wordWarnings(card, titles, id)]) out.push({ card: id, ...w });
  }
  const sorted = sortedCaps(caps);
  const writtenIds = new Set(written.map(idOf));
  for (const band of sorted) {
    const holders = holdersOf(all, band, sorted);
    if (holders.length <= band.cap || !holders.some((c) => writtenIds.has(idOf(c)))) continue;
    const detail =
      `${bandLabel(band, sorted)} holds ${formatCount(holders.length)} cards, over its cap of ` +
      `${formatCount(band.cap)} (settings.yaml priority_caps): ${named(holders)}; other writes that ` +
      "add a card there are refused until some are lowered";
    out.push({ card: null, code: "priority_cap", detail });
  }
  return out;
}

function neverFires(card: CardMeta): WriteWarning[] {
  if (!firesOnWords(card)) return [];
  return wordProblems(card, cardTerms(card))
    .filter((p) => p.code === "never_fires")
    .map((p) => ({ code: "never_fires" as const, detail: `it can never fire: ${p.detail}` }));
}

function sortedCaps(caps: readonly PriorityCap[] = DEFAULT_PRIORITY_CAPS): PriorityCap[] {
  return [...caps].sort((a, b) => b.priority - a.priority);
}

/** The capped band a priority falls in (the highest capped priority at or below it), if any. */
function bandOf(priority: number, caps: readonly PriorityCap[]): PriorityCap | undefined {
  return caps.find((c) => priority >= c.priority);
}

/** The enabled cards in `band`, highest priority first, then by title. */
function holdersOf(cards: readonly CardMeta[], band: PriorityCap, caps: readonly PriorityCap[]): CardMeta[] {
  return cards
    .filter((c) => c.enabled && bandOf(c.priority, caps) === band)
    .sort((a, b) => b.priority - a.priority || a.title.localeCompare(b.title));
}

/** "priority 2 or above" for the top band, "priority 1" or "priority 3 to 9" below it. */
function bandLabel(band: PriorityCap, caps: readonly PriorityCap[]): string {
  const above = caps[caps.indexOf(band) - 1];
  if (above === undefined) return `priority ${band.priority} or above`;
  if (above.priority === band.priority + 1) return `priority ${band.priority}`;
  return `priority ${band.priority} to ${above.priority - 1}`;
}

/** Up to SHOWN ids, and a count of the rest. */
function named(cards: readonly CardMeta[]): string {
  const SHOWN = 20;
  const ids = cards.slice(0, SHOWN).map(idOf).join(", ");
  return cards.length > SHOWN ? `${ids} and ${formatCount(cards.length - SHOWN)} more` : ids;
}

/**
 * Refused when the write brings an enabled card into a band already holding its cap: a new card, a
 * raised priority, or a card switched back on. A card that stays in its band is never refused.
 */
function capProblem(
  next: CardMeta,
  before: CardMeta | null,
  others: readonly CardMeta[],
  caps: readonly PriorityCap[],
): WriteWarning | null {
  const band = next.enabled ? bandOf(next.priority, caps) : undefined;
  if (band === undefined) return null;
  if (before?.enabled && bandOf(before.priority, caps) === band) return null;
  const holders = holdersOf(others, band, caps);
  if (holders.length < band.cap) return null;
  const label = bandLabel(band, caps);
  const held =
    holders.length === 0
      ? "no card may hold it"
      : `${holders.length === 1 ? "1 card holds" : `${formatCount(holders.length)} cards hold`} it: ${named(holders)}`;
  const detail =
    `${label} is capped at ${formatCount(band.cap)} ${band.cap === 1 ? "card" : "cards"} (settings.yaml ` +
    `priority_caps) and ${held}; give this card a lower priority, lower one of theirs, or raise the cap`;
  return { code: "priority_cap", detail };
}

/** Folded title → the ids of the cards with that title. */
function titleIndex(cards: readonly CardMeta[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const c of cards) {
    const t = fold(c.title.trim());
    const ids = out.get(t);
    if (ids) ids.push(idOf(c));
    else out.set(t, [idOf(c)]);
  }
  return out;
}

const JOINED = /\s(or|and)\s/i;

/** What is worth fixing about a card's words; nothing for a card that does not fire on them. */
function wordWarnings(card: CardMeta, titles: Map<string, string[]>, self = idOf(card)): WriteWarning[] {
  if (!firesOnWords(card)) return [];
  const out: WriteWarning[] = [];
  for (const p of wordProblems(card, cardTerms(card)))
    if (p.code === "no_keywords") out.push({ code: "no_keywords", detail: p.detail });
  const patterns = new Set(cardPatterns(card));
  const keys = [...card.keywords, ...card.aliases].map((k) => k.trim()).filter((k) => !patterns.has(k));
  for (const key of keys) {
    const joined = JOINED.exec(key);
    if (joined) {
      const detail =
        `"${key}" reads as two keywords typed as one: it fires only on the whole phrase, never on ` +
        `either part; give each its own keyword (a name with "${joined[1]}" in it is fine as it is)`;
      out.push({ code: "joined_terms", term: key, detail });
    }
  }
  for (const term of cardTerms(card)) {
    const generic = genericTerm(term, rulesOf(card));
    if (generic !== null) out.push({ code: "generic_keyword", term, detail: generic });
  }
  out.push(...titleWarnings(card, keys, titles, self));
  return out;
}

/** A keyword or alias that is another card's title, and a title another card has too. */
function titleWarnings(
  card: CardMeta,
  keys: readonly string[],
  titles: Map<string, string[]>,
  self: string,
): WriteWarning[] {
  const out: WriteWarning[] = [];
  const othersWith = (text: string) => (titles.get(fold(text)) ?? []).filter((id) => id !== self);
  const sameTitle = othersWith(card.title.trim());
  if (sameTitle.length > 0) {
    const detail = `${sameTitle.join(", ")} has the title "${card.title.trim()}" too: both fire on it and compete for the budget`;
    out.push({ code: "another_title", term: card.title.trim(), detail });
  }
  const seen = new Set([fold(card.title.trim())]);
  for (const key of keys) {
    if (seen.has(fold(key))) continue;
    seen.add(fold(key));
    const ids = othersWith(key);
    if (ids.length === 0) continue;
    const detail = `"${key}" is the title of ${ids.join(", ")}: this card comes in whenever that one is named`;
    out.push({ code: "another_title", term: key, detail });
  }
  return out;
}
